// kifudb's playable board: lishogi's shogiground inside a Streamlit component.
//
// Streamlit sends the position and what may be played (`streamlit:render`, args made by
// kifudb.dashboard.shogiboard: every legal move computed in Python by kifudb.core); the board
// sends back the USI move the user played (`streamlit:setComponentValue`) with the SFEN it was
// played from and a fresh id, and its height (`streamlit:setFrameHeight`). The plain
// postMessage protocol of Streamlit's components, without streamlit-component-lib (React).

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

function color(side) {
  return side === 'w' || side === 'white' ? 'gote' : 'sente';
}

/** The usi moves' squares as shogiground's keys (the same names: 7g, 5e …). */
function lastDests(usi) {
  if (!usi) return undefined;
  return usi[1] === '*' ? [usi.slice(2, 4)] : [usi.slice(0, 2), usi.slice(2, 4)];
}

function shape(arrow) {
  const orig = arrow.usi[1] === '*'
    ? { role: ROLE_OF[arrow.usi[0]], color: color(args.turn) }
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

function config() {
  const [board, turn, hands] = args.sfen.split(' ');
  const movable = args.movable && !args.disabled;
  return {
    sfen: { board, hands: hands === '-' ? '' : hands },
    orientation: args.orientation === 'white' ? 'gote' : 'sente',
    turnColor: color(turn),
    activeColor: movable ? color(turn) : undefined,
    lastDests: lastDests(args.last_move),
    checks: args.check,
    viewOnly: false,
    coordinates: { enabled: true, files: 'numeric', ranks: 'japanese' },
    hands: { roles: ROLES },
    movable: {
      free: false,
      dests: new Map(movable ? Object.entries(args.moves) : []),
      showDests: true,
      events: { after: (orig, dest, prom) => played(orig + dest + (prom ? '+' : '')) },
    },
    droppable: {
      free: false,
      dests: new Map(movable ? Object.entries(args.drops).map(
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
    drawable: { enabled: true, visible: true, autoShapes: args.arrows.map(shape) },
    animation: { enabled: true, duration: 180 },
  };
}

function marks() {
  const gote = args.orientation === 'white';
  const [top, bottom] = document.querySelectorAll('.mark');
  const names = args.hand_names;
  top.textContent = gote ? names.black : names.white;
  bottom.textContent = gote ? names.white : names.black;
  root.dataset.sfen = args.sfen;
  root.dataset.orientation = args.orientation;
  root.setAttribute('aria-label', `Shogi board, SFEN ${args.sfen}`);
}

function render(newArgs, disabled) {
  const first = args === null;
  const turned = !first && newArgs.orientation !== args.orientation;
  args = { ...newArgs, disabled };
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

// The page's step keys (← → Home End) while the board has the focus: given to the page, whose
// buttons have them as shortcuts.
document.addEventListener('keydown', (event) => {
  if (!STEP_KEYS.has(event.key) || event.ctrlKey || event.metaKey || event.altKey) return;
  event.preventDefault();
  const page = window.parent;
  page.document.dispatchEvent(new page.KeyboardEvent('keydown', { key: event.key, code: event.code,
    keyCode: event.keyCode, shiftKey: event.shiftKey, bubbles: true, cancelable: true }));
  window.parent.focus();
});

// The frame takes its column's width and no more (Streamlit writes the width it measured
// as the frame's width attribute, which would hold the column at that width).
if (window.frameElement) {
  window.frameElement.style.width = '100%';
  window.frameElement.style.minWidth = '0';
}

send('streamlit:componentReady', { apiVersion: 1 });
