// The pieces, drawn as kifudb's own SVG board draws them (a pentagon with its kanji; promoted
// pieces in red), as CSS background images: one rule per piece, colour and board orientation.

export const KANJI = {
  pawn: '歩', lance: '香', knight: '桂', silver: '銀', gold: '金', bishop: '角', rook: '飛',
  king: '玉', tokin: 'と', promotedlance: '杏', promotedknight: '圭', promotedsilver: '全',
  horse: '馬', dragon: '龍',
};

const PROMOTED = new Set(['tokin', 'promotedlance', 'promotedknight', 'promotedsilver', 'horse',
  'dragon']);

function pieceSvg(role, upsideDown) {
  const ink = PROMOTED.has(role) ? '#b0150f' : '#1a1a1a';
  const turn = upsideDown ? ' transform="rotate(180 55 60)"' : '';
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 110 120"><g${turn}>` +
    '<polygon points="55,9 84,20 97,112 13,112 26,20" fill="#f5deb0" stroke="#6b4b1f" ' +
    'stroke-width="3" stroke-linejoin="round"/>' +
    `<text x="55" y="88" font-size="60" text-anchor="middle" fill="${ink}" font-family="` +
    `'Noto Serif CJK JP','Noto Sans CJK JP','Hiragino Mincho ProN','Yu Mincho',serif" ` +
    `font-weight="600">${KANJI[role]}</text></g></svg>`;
}

function url(svg) {
  return `url("data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}")`;
}

/** The style sheet of the pieces: a sente piece stands upright when the board is seen from
 * sente's side (orientation-sente), a gote piece upside down, and the other way round. */
export function pieceRules() {
  const rules = [];
  for (const role of Object.keys(KANJI)) {
    const up = url(pieceSvg(role, false)), down = url(pieceSvg(role, true));
    rules.push(`.orientation-sente piece.sente.${role},.orientation-gote piece.gote.${role}` +
      `{background-image:${up}}`);
    rules.push(`.orientation-sente piece.gote.${role},.orientation-gote piece.sente.${role}` +
      `{background-image:${down}}`);
  }
  return rules.join('\n');
}
