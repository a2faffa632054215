// Where things sit on the table page: the seats around the cloth, relative to the viewer (you
// at the bottom, the others in the order of play, going round the way the game is played),
// each seat's play in front of it, and the hand in at most two rows that fit the screen.

/**
 * The way play goes round, seen from above: every preset passes the turn to seat + 1. The
 * sources deal and play anticlockwise (seeds 000, 003 and 004; Owen's seed 002 is silent and
 * plays as they do), except "winner" (seed 001), which plays clockwise (docs/rules/).
 * 1: counter-clockwise, the next seat on the viewer's right; -1: clockwise, on the left.
 */
const CLOCKWISE = new Set(["zheng-shangyou/winner"]);

export function direction(game) {
  return CLOCKWISE.has(game) ? -1 : 1;
}

export function relative(seat, viewer, n) {
  const me = viewer === null || viewer === undefined ? 0 : viewer;
  return ((seat - me) % n + n) % n;
}

/**
 * The point a share `frac` (0..1) of the way round the rectangle of half sides rx, ry, from
 * the middle of its bottom side and towards its right side first (the centre is 0, 0; y down).
 */
export function ringPoint(frac, rx, ry) {
  const P = 4 * (rx + ry);
  let d = (((frac % 1) + 1) % 1) * P;
  if (d <= rx) return [d, ry];
  d -= rx;
  if (d <= 2 * ry) return [rx, ry - d];
  d -= 2 * ry;
  if (d <= 2 * rx) return [rx - d, -ry];
  d -= 2 * rx;
  if (d <= 2 * ry) return [-rx, -ry + d];
  return [-rx + (d - 2 * ry), ry];
}

/**
 * Push apart seat boxes that meet (a box grown by a second line of tags, such as "declarer", on
 * a low screen with many seats), each pair along the axis where they overlap least, half each
 * way, kept inside the W x H area; a few rounds settle it. Boxes are {x, y, w, h}, moved in place.
 */
export function separate(boxes, W, H, gap = 3, rounds = 12) {
  const clamp = (v, lo, hi) => Math.min(Math.max(v, lo), Math.max(lo, hi));
  for (let r = 0; r < rounds; r++) {
    let moved = false;
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i];
        const b = boxes[j];
        const ox = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x) + gap;
        const oy = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y) + gap;
        if (ox <= gap || oy <= gap) continue;
        moved = true;
        if (ox < oy) {
          const d = ox / 2 * (a.x + a.w / 2 <= b.x + b.w / 2 ? 1 : -1);
          a.x = clamp(a.x - d, 0, W - a.w);
          b.x = clamp(b.x + d, 0, W - b.w);
        } else {
          const d = oy / 2 * (a.y + a.h / 2 <= b.y + b.h / 2 ? 1 : -1);
          a.y = clamp(a.y - d, 0, H - a.h);
          b.y = clamp(b.y + d, 0, H - b.h);
        }
      }
    }
    if (!moved) return;
  }
}

/** The sizes a play may be drawn at, largest first, where it does not fit whole. */
const SPOT_SCALES = [1, 0.9, 0.8, 0.7, 0.6, 0.5];

/**
 * Put the seat boxes and the play spots of `area` in place. Seat boxes and spots carry
 * data-rel (their place after the viewer); n is the number of seats.
 */
export function placeTable(area, n, dir) {
  const W = area.clientWidth;
  const H = area.clientHeight;
  if (!W || !H || !n) return;
  const seats = [...area.querySelectorAll(".seat-box")];
  let bw = 0;
  let bh = 0;
  for (const s of seats) { bw = Math.max(bw, s.offsetWidth); bh = Math.max(bh, s.offsetHeight); }
  const cx = W / 2;
  const cy = H / 2;
  const rx = Math.max(0, (W - bw) / 2 - 2);
  const ry = Math.max(0, (H - bh) / 2 - 2);
  // the seats go round the edge of the table's rectangle at even steps along it (not at even
  // angles): on a wide, low table (a phone on its side) or a narrow, tall one (a phone upright)
  // the seats spread along the long sides and take the corners, clear of their neighbours
  const at = (rel) => {
    const [x, y] = ringPoint(rel / n, rx, ry);
    return [cx + dir * x, cy + y];
  };
  const put = seats.map((s) => {
    const [x, y] = at(Number(s.dataset.rel));
    return { s, w: s.offsetWidth, h: s.offsetHeight, x: x - s.offsetWidth / 2, y: y - s.offsetHeight / 2 };
  });
  separate(put, W, H);
  for (const b of put) {
    b.s.style.left = `${Math.round(b.x)}px`;
    b.s.style.top = `${Math.round(b.y)}px`;
  }
  // a play lies in front of its seat: just clear of the seat box, towards the middle. A play
  // too wide for the room between the seats is drawn smaller (down to SPOT_SCALES' last), and
  // where no place clears every seat even so it goes where it covers the least.
  const boxes = new Map(seats.map((b) => [b.dataset.rel, b]));
  // the seat boxes with a margin of 2 px (what rounding may add)
  const rects = seats.map((o) => ({ x: o.offsetLeft - 2, y: o.offsetTop - 2, w: o.offsetWidth + 4, h: o.offsetHeight + 4 }));
  // what a box of half sides hw, hh centred at x, y covers: the area it shares with the seats
  // (a thousand times over: a seat is covered only where nothing else is left), with the
  // plays already placed, and what of it lies outside the table area
  const placed = [];
  const shared = (x, y, hw, hh, o) => {
    const ox = Math.min(x + hw, o.x + o.w) - Math.max(x - hw, o.x);
    const oy = Math.min(y + hh, o.y + o.h) - Math.max(y - hh, o.y);
    return ox > 0 && oy > 0 ? ox * oy : 0;
  };
  const cost = (x, y, hw, hh) => {
    let c = 0;
    for (const o of rects) c += 1000 * shared(x, y, hw, hh, o);
    for (const o of placed) c += shared(x, y, hw, hh, o);
    return c + 1000 * (4 * hw * hh - shared(x, y, hw, hh, { x: 0, y: 0, w: W, h: H }));
  };
  for (const sp of area.querySelectorAll(".spot")) {
    const seat = boxes.get(sp.dataset.rel);
    if (!seat) continue;
    sp.style.removeProperty("transform");
    delete sp.dataset.scale;
    sp.style.left = "0px";
    const spw = Math.max(sp.offsetWidth, sp.scrollWidth);
    const sph = Math.max(sp.offsetHeight, sp.scrollHeight);
    const sx = seat.offsetLeft + seat.offsetWidth / 2;
    const sy = seat.offsetTop + seat.offsetHeight / 2;
    let dx = cx - sx;
    let dy = cy - sy;
    const len = Math.hypot(dx, dy) || 1;
    dx /= len; dy /= len;
    // the least distance along (dx, dy) at which the two boxes no longer meet
    const need = (w, h) => Math.min(Math.abs(dx) > 1e-6 ? w / Math.abs(dx) : Infinity,
                                    Math.abs(dy) > 1e-6 ? h / Math.abs(dy) : Infinity);
    let best = null;
    for (const s of SPOT_SCALES) {
      const hw = spw * s / 2;
      const hh = sph * s / 2;
      const d0 = need(seat.offsetWidth / 2 + hw, seat.offsetHeight / 2 + hh) + 4;
      // further in while it would cover a seat (not past the middle unless its own seat needs it)
      for (let e = d0; ; e += 4) {
        const x = sx + dx * e;
        const y = sy + dy * e;
        const c = cost(x, y, hw, hh);
        if (!best || c < best.c - 0.5) best = { s, x, y, c };
        if (c <= 0 || e >= Math.max(d0, len)) break;
      }
      if (best.c <= 0) break;
    }
    sp.style.left = `${Math.round(best.x)}px`;
    sp.style.top = `${Math.round(best.y)}px`;
    placed.push({ x: best.x - spw * best.s / 2, y: best.y - sph * best.s / 2, w: spw * best.s, h: sph * best.s });
    if (best.s < 1) {
      sp.dataset.scale = String(best.s);
      sp.style.transform = `translate(-50%, -50%) scale(${best.s})`;
    }
  }
  const cloth = area.querySelector(".cloth");
  if (cloth) {
    cloth.style.left = `${Math.round(bw / 3)}px`;
    cloth.style.right = `${Math.round(bw / 3)}px`;
    cloth.style.top = `${Math.round(bh / 3)}px`;
    cloth.style.bottom = `${Math.round(bh / 3)}px`;
  }
}

const MIN_STEP = 24;      // px of each card's corner that stays in view

/**
 * Lay the hand out in one row when it fits, else in two even rows (more only when two rows
 * would show less than MIN_STEP px of a card): sets --step (the distance between cards) and
 * the width that makes the rows break at the same card.
 */
export function fitHand(hand) {
  const cards = hand.querySelectorAll(".card");
  const n = cards.length;
  hand.style.removeProperty("--step");
  hand.style.removeProperty("width");
  hand.style.removeProperty("padding-right");
  if (!n || !hand.parentElement) return;
  const pad = parseFloat(getComputedStyle(hand).paddingLeft) || 0;
  const avail = hand.parentElement.clientWidth - pad * 2;
  const cardW = cards[0].offsetWidth;
  const overlap = parseFloat(getComputedStyle(hand).getPropertyValue("--overlap")) || 20;
  let step = Math.max(MIN_STEP, cardW - overlap);
  let perRow = n;
  if (cardW + (n - 1) * step > avail) {
    for (let rows = 2; ; rows++) {
      perRow = Math.ceil(n / rows);
      const fit = perRow > 1 ? Math.floor((avail - cardW) / (perRow - 1)) : step;
      if (fit >= MIN_STEP || perRow <= 1) { step = Math.min(step, fit); break; }
    }
  }
  // each card takes `step` px of its row; the last one shows whole in the right padding
  hand.style.setProperty("--step", `${step}px`);
  const padR = pad + Math.max(0, cardW - step);
  hand.style.paddingRight = `${padR}px`;
  hand.style.width = `${pad + padR + perRow * step + 0.5}px`;
}
