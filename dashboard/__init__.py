"""The Streamlit dashboard over the store (built in a later issue)."""
