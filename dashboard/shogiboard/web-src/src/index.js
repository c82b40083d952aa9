// kifudb's playable board: lishogi's shogiground inside a Streamlit component.
//
// Streamlit sends the position and what may be played (`streamlit:render`, args made by
// kifudb.dashboard.shogiboard: every legal move computed in Python by kifudb.core); the board
// sends back the USI move the user played (`streamlit:setComponentValue`) with the SFEN it was
// played from and a fresh id, and its height (`streamlit:setFrameHeight`). The plain
// postMessage protocol of Streamlit's components, without streamlit-component-lib (React).
//
// A game's line (`args.line`: every position of the game, `args.line.ply` the one Python
// shows): the board steps through it itself — the step keys (← → Home End, on the board or on
// the page) and the page's step buttons (`args.line.buttons`: their Streamlit keys) — with no
// round trip: it draws the position, puts the ply in the page's URL (one history entry a
// step) and sends `{ply, id}`, on which the page draws the rest (its move list, notes …).

import { Shogiground } from 'shogiground';
import { pieceRules } from './pieces.js';

const ROLES = ['rook', 'bishop', 'gold', 'silver', 'knight', 'lance', 'pawn'];
const LETTERS = { pawn: 'P', lance: 'L', knight: 'N', silver: 'S', gold: 'G', bishop: 'B',
  rook: 'R' };
const ROLE_OF = Object.fromEntries(Object.entries(LETTERS).map(([role, l]) => [l, role]));
const PROMOTES = { pawn: 'tokin', lance: 'promotedlance', knight: 'promotedknight',
  silver: 'promotedsilver', bishop: 'horse', rook: 'dragon' };
const UNPROMOTES = Object.fromEntries(Object.entries(PROMOTES).map(([a, b]) => [b, a]));
// the keys the page's step buttons answer (Streamlit's shortcuts listen on the page, not here)
const STEP_KEYS = new Set(['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End']);

function send(type, data) {
  window.parent.postMessage({ isStreamlitMessage: true, type, ...data }, '*');
}

const root = document.getElementById('root');
const style = document.createElement('style');
style.textContent = pieceRules();
document.head.appendChild(style);

let args = null;     // the last args from Streamlit
let ground = null;
let shown = null;    // the ply of args.line drawn (null: no line, or Python's own)
let pending = null;  // the id of the last ply sent, until Python's answer says it has it

function color(side) {
  return side === 'w' || side === 'white' ? 'gote' : 'sente';
}

/** The usi moves' squares as shogiground's keys (the same names: 7g, 5e …). */
function lastDests(usi) {
  if (!usi) return undefined;
  return usi[1] === '*' ? [usi.slice(2, 4)] : [usi.slice(0, 2), usi.slice(2, 4)];
}

function shape(arrow, turn) {
  const orig = arrow.usi[1] === '*'
    ? { role: ROLE_OF[arrow.usi[0]], color: color(turn) }
    : arrow.usi.slice(0, 2);
  return { orig, dest: arrow.usi.slice(2, 4), brush: arrow.brush || 'primary',
    description: arrow.label || undefined };
}

function played(usi) {
  // nothing more may be played until Streamlit has answered with the next position
  ground.set({ movable: { dests: new Map() }, droppable: { dests: new Map() } });
  send('streamlit:setComponentValue', {
    value: { usi, sfen: args.sfen, id: `${Date.now()}-${Math.random().toString(36).slice(2)}` },
    dataType: 'json',
  });
}

/** The position drawn: Python's (with its legal moves), or another ply of the line stepped
 * to here (shown only, until Python has answered with its moves). */
function drawn() {
  if (!args.line || shown === null || shown === args.line.ply) return args;
  const at = args.line.plies[shown];
  return { ...args, sfen: at.sfen, last_move: at.last_move, arrows: at.arrows, check: at.check,
    moves: {}, drops: {}, promotions: {}, movable: false };
}

function config() {
  const a = drawn();
  const [board, turn, hands] = a.sfen.split(' ');
  const movable = a.movable && !a.disabled;
  return {
    sfen: { board, hands: hands === '-' ? '' : hands },
    orientation: args.orientation === 'white' ? 'gote' : 'sente',
    turnColor: color(turn),
    activeColor: movable ? color(turn) : undefined,
    lastDests: lastDests(a.last_move),
    checks: a.check,
    viewOnly: false,
    coordinates: { enabled: true, files: 'numeric', ranks: 'japanese' },
    hands: { roles: ROLES },
    movable: {
      free: false,
      dests: new Map(movable ? Object.entries(a.moves) : []),
      showDests: true,
      events: { after: (orig, dest, prom) => played(orig + dest + (prom ? '+' : '')) },
    },
    droppable: {
      free: false,
      dests: new Map(movable ? Object.entries(a.drops).map(
        ([letter, keys]) => [`${color(turn)} ${ROLE_OF[letter]}`, keys]) : []),
      showDests: true,
      events: { after: (piece, key) => played(`${LETTERS[piece.role]}*${key}`) },
    },
    premovable: { enabled: false },
    predroppable: { enabled: false },
    promotion: {
      promotesTo: (role) => PROMOTES[role],
      unpromotesTo: (role) => UNPROMOTES[role],
      movePromotionDialog: (orig, dest) => args.promotions[orig + dest] === 'choice',
      forceMovePromotion: (orig, dest) => args.promotions[orig + dest] === 'forced',
    },
    drawable: { enabled: true, visible: true, autoShapes: a.arrows.map((x) => shape(x, turn)) },
    animation: { enabled: true, duration: 180 },
  };
}

function marks() {
  const gote = args.orientation === 'white';
  const [top, bottom] = document.querySelectorAll('.mark');
  const names = args.hand_names;
  top.textContent = gote ? names.black : names.white;
  bottom.textContent = gote ? names.white : names.black;
  const sfen = drawn().sfen;
  root.dataset.sfen = sfen;
  root.dataset.orientation = args.orientation;
  if (args.line) root.dataset.ply = String(shown ?? args.line.ply);
  root.setAttribute('aria-label', `Shogi board, SFEN ${sfen}`);
}

function render(newArgs, disabled) {
  const first = args === null;
  const turned = !first && newArgs.orientation !== args.orientation;
  args = { ...newArgs, disabled };
  // Python's ply, unless a ply stepped to here is not answered yet (then that one stays)
  if (!args.line || pending === null || args.seen === pending) {
    pending = null;
    shown = args.line ? args.line.ply : null;
  }
  marks();
  if (first || turned) {
    // a new orientation: the board and hands are laid out anew
    ground?.destroy();
    ground = Shogiground(config(), {
      board: document.getElementById('board'),
      hands: { top: document.getElementById('hand-top'),
        bottom: document.getElementById('hand-bottom') },
    });
  } else {
    ground.set(config());
  }
  resize();
}

/** Draw the ply ``n`` of the line (the first or the last one past the ends), put it in the
 * page's URL (one history entry) and send it to Python. */
function step(n) {
  const last = args.line.plies.length - 1;
  n = Math.max(0, Math.min(last, n));
  if (n === shown) return;
  shown = n;
  marks();
  ground.set(config());
  const page = window.parent;
  const search = page.location.search.replace(/([?&])ply=[^&]*(&|$)/, (_, before, after) =>
    (after ? before : '')).replace(/[?&]$/, '');
  const query = n ? `${search}${search ? '&' : '?'}ply=${n}` : search;
  page.history.pushState({}, '', page.location.pathname + query);
  pending = `${Date.now()}-${Math.random().toString(36).slice(2)}`;
  send('streamlit:setComponentValue', { value: { ply: n, id: pending }, dataType: 'json' });
}

/** What a step key or button asks for in the line, as a ply; null for none. */
function target(what) {
  const now = shown ?? args.line.ply;
  const last = args.line.plies.length - 1;
  return { ArrowLeft: now - 1, ArrowUp: now - 1, ArrowRight: now + 1, ArrowDown: now + 1,
    Home: 0, End: last, back: now - 1, forward: now + 1, 'to-start': 0, 'to-end': last }[what]
    ?? null;
}

let height = 0;
function resize() {
  const box = document.getElementById('board');
  root.style.setProperty('--sq', `${box.getBoundingClientRect().width / 9}px`);
  const wanted = Math.ceil(root.getBoundingClientRect().height);
  if (wanted !== height) {
    height = wanted;
    send('streamlit:setFrameHeight', { height });
  }
}

new ResizeObserver(resize).observe(root);

window.addEventListener('message', (event) => {
  const data = event.data;
  if (data && data.type === 'streamlit:render') render(data.args, !!data.disabled);
});

// The step keys (← → Home End) while the board has the focus: a game's line steps here; else
// (the explorer) they go to the page, whose buttons have them as shortcuts.
function plainKey(event) {
  return STEP_KEYS.has(event.key) && !event.ctrlKey && !event.metaKey && !event.altKey;
}

document.addEventListener('keydown', (event) => {
  if (!plainKey(event) || !args) return;
  event.preventDefault();
  if (args.line) {
    step(target(event.key));
    return;
  }
  const page = window.parent;
  page.document.dispatchEvent(new page.KeyboardEvent('keydown', { key: event.key, code: event.code,
    keyCode: event.keyCode, shiftKey: event.shiftKey, bubbles: true, cancelable: true }));
  window.parent.focus();
});

// A game's line: the page's step keys and buttons step here too (before Streamlit's own
// handlers, which would run the page again for each step); not while a box has the focus.
const EDITING = 'input, textarea, select, [contenteditable="true"], [role="slider"]';
function onPageKey(event) {
  if (!args || !args.line || !plainKey(event)) return;
  if (event.target instanceof window.parent.Element && event.target.closest(EDITING)) return;
  event.preventDefault();
  event.stopImmediatePropagation();
  step(target(event.key));
}
function onPageClick(event) {
  if (!args || !args.line || !(event.target instanceof window.parent.Element)) return;
  for (const [key, what] of Object.entries(args.line.buttons || {})) {
    const button = event.target.closest(`.st-key-${key} button`);
    if (button) {
      event.preventDefault();
      event.stopImmediatePropagation();
      if (!button.disabled) step(target(what));
      return;
    }
  }
}
let listening = false;
function listen(on) {
  if (on === listening || !window.frameElement) return;
  const page = window.parent;
  const method = on ? 'addEventListener' : 'removeEventListener';
  page[method]('keydown', onPageKey, true);
  page[method]('click', onPageClick, true);
  listening = on;
}
window.addEventListener('message', (event) => {
  if (event.data && event.data.type === 'streamlit:render') listen(!!event.data.args.line);
});
// the frame taken away (another page): the page's listeners go with it
window.addEventListener('pagehide', () => listen(false));

// The frame takes its column's width and no more (Streamlit writes the width it measured
// as the frame's width attribute, which would hold the column at that width).
if (window.frameElement) {
  window.frameElement.style.width = '100%';
  window.frameElement.style.minWidth = '0';
}

send('streamlit:componentReady', { apiVersion: 1 });
