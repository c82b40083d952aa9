"""Readers: turn game-record files into start positions and move texts, ready for replay."""
