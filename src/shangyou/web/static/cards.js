// Cards drawn as inline SVG: rank and suit symbol (suits are drawn as paths, so no font is
// needed for them; a suit is always told by its shape, never by colour alone). The ink is
// currentColor under a class per suit (ink-S, ink-H, ink-D, ink-C, ink-RJ, ink-BJ): hearts and
// diamonds red, spades and clubs black, or four colours with the four-colour setting (CSS).
// Card texts follow the engine's notation: "7H", "10S", "QD", "BJ", "RJ".

import { t } from "./i18n.js";

const NS = "http://www.w3.org/2000/svg";

export const SUITS = {
  S: { name: "spades", color: "black", glyph: "\u2660" },
  H: { name: "hearts", color: "red", glyph: "\u2665" },
  D: { name: "diamonds", color: "red", glyph: "\u2666" },
  C: { name: "clubs", color: "black", glyph: "\u2663" },
};

const RANK_WORDS = {
  J: "jack", Q: "queen", K: "king", A: "ace",
};

// Suit shapes in a 10 x 10 box.
const SUIT_PATHS = {
  H: "M5 9.6C5 9.6 0 6 0 3C0 1.3 1.3 0 2.8 0C3.8 0 4.6 .6 5 1.5C5.4 .6 6.2 0 7.2 0" +
     "C8.7 0 10 1.3 10 3C10 6 5 9.6 5 9.6Z",
  D: "M5 0L9 5L5 10L1 5Z",
  S: "M5 0C5 0 0 3.6 0 6.2C0 7.7 1.1 8.7 2.5 8.7C3.4 8.7 4.1 8.3 4.6 7.6L3.9 10H6.1L5.4 7.6" +
     "C5.9 8.3 6.6 8.7 7.5 8.7C8.9 8.7 10 7.7 10 6.2C10 3.6 5 0 5 0Z",
  C: null, // drawn from circles
};

function el(name, attrs = {}) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

/** Parse a card text into {rank, suit, joker}. */
export function parseCard(text) {
  const t = String(text).trim().toUpperCase();
  if (t === "BJ" || t === "RJ") return { rank: t, suit: null, joker: t, text: t };
  const suit = t.slice(-1);
  let rank = t.slice(0, -1);
  if (rank === "T") rank = "10";
  return { rank, suit: SUITS[suit] ? suit : null, joker: null, text: rank + suit };
}

/** Is this token a card (as opposed to a word like "pass", "as", a reading label)? */
export function isCardText(tok) {
  return /^(BJ|RJ|(10|[2-9TJQKA])[SHDC])$/i.test(String(tok).trim());
}

/** Split a play text ("5H 6D BJ as 4-6") into cards and the reading. */
export function splitPlay(text) {
  const toks = String(text).trim().split(/\s+/).filter(Boolean);
  if (!toks.length) return null;
  // "AS" is both the ace of spades and the word "as": the split is taken only where every
  // token before it is a card and the reading after it is not just cards (readings such as
  // "4-6", "sevens full" or "3-7 in clubs" never are)
  for (let i = toks.length - 2; i >= 1; i--) {
    if (toks[i].toLowerCase() !== "as") continue;
    const head = toks.slice(0, i);
    const tail = toks.slice(i + 1);
    if (head.every(isCardText) && !tail.every(isCardText)) {
      return { cards: head.map((c) => parseCard(c).text), reading: tail.join(" ") };
    }
  }
  if (!toks.every(isCardText)) return null;
  return { cards: toks.map((c) => parseCard(c).text), reading: null };
}

export function cardName(text) {
  const c = parseCard(text);
  if (c.joker) return t(`card.${c.joker}`);
  const r = RANK_WORDS[c.rank] ? t(`rank.${c.rank}`) : c.rank;
  return t("card.name", { rank: r, suit: c.suit ? t(`card.${c.suit}`) : "?" });
}

function inkClass(c) {
  return "ink-" + (c.joker || c.suit || "S");
}

/** A suit symbol as a small SVG (for prompts such as "trump 2♠"). */
export function suitIcon(suit, size = 14) {
  const svg = el("svg", { viewBox: "0 0 10 10", width: size, height: size,
                          class: `suit-icon ink-${suit}`, role: "img", "aria-label": t(`card.${suit}`) });
  svg.append(suitShape(suit, "currentColor"));
  return svg;
}

function suitShape(suit, fill) {
  if (suit === "C") {
    const g = el("g", { fill });
    g.append(el("circle", { cx: 5, cy: 2.6, r: 2.45 }), el("circle", { cx: 2.45, cy: 6, r: 2.45 }),
             el("circle", { cx: 7.55, cy: 6, r: 2.45 }),
             el("path", { d: "M4.5 5.5L3.9 10H6.1L5.5 5.5Z" }));
    return g;
  }
  return el("path", { d: SUIT_PATHS[suit], fill });
}

function placed(shape, x, y, size, rotate = false) {
  const g = el("g", {
    transform: `translate(${x} ${y}) scale(${size / 10})` + (rotate ? " rotate(180 5 5)" : ""),
  });
  g.append(shape);
  return g;
}

/**
 * The SVG of one card (viewBox 50 x 70; it scales to whatever size CSS gives it).
 * The rank and suit sit in the top-left corner so an overlapped hand still shows them.
 */
export function cardSVG(text) {
  const c = parseCard(text);
  const svg = el("svg", { viewBox: "0 0 50 70", class: `card-svg ${inkClass(c)}`, "aria-hidden": "true",
                          focusable: "false", preserveAspectRatio: "xMidYMid meet" });
  const ink = "currentColor";
  svg.append(el("rect", { x: 0.75, y: 0.75, width: 48.5, height: 68.5, rx: 4.5,
                          class: "card-face", fill: "#fff", stroke: "#555", "stroke-width": 1.2 }));
  if (c.joker) {
    // no letters (the button's name says which joker): the red (big) joker has two filled
    // stars in its corner and a filled star in the middle, the black (small) joker one hollow
    // star in its corner and a hollow one in the middle, so shape tells them apart, not colour
    const big = c.joker === "RJ";
    svg.append(el("path", { d: starPath(7, 9, 5.5, 2.3), fill: big ? ink : "#fff", stroke: ink,
                            "stroke-width": 1.2 }));
    if (big) svg.append(el("path", { d: starPath(7, 21, 5.5, 2.3), fill: ink, stroke: ink, "stroke-width": 1.2 }));
    svg.append(el("path", { d: starPath(29, 40, 16, 6.5), fill: big ? ink : "#fff",
                            stroke: ink, "stroke-width": 1.8 }));
    return svg;
  }
  const rank = el("text", {
    x: c.rank === "10" ? 2.2 : 3.4, y: 15, fill: ink, "font-size": c.rank === "10" ? 12.5 : 14,
    "font-weight": 700, "letter-spacing": c.rank === "10" ? -1 : 0,
    "font-family": "DejaVu Sans, Verdana, Arial, sans-serif",
  });
  rank.textContent = c.rank;
  svg.append(rank);
  if (c.suit) {
    svg.append(placed(suitShape(c.suit, ink), 3.6, 18.5, 9.5));
    svg.append(placed(suitShape(c.suit, ink), 18, 30, 22));
    svg.append(placed(suitShape(c.suit, ink), 40.5, 57, 7, true));
  }
  return svg;
}

function starPath(cx, cy, r1, r2) {
  let d = "";
  for (let i = 0; i < 10; i++) {
    const r = i % 2 ? r2 : r1;
    const a = -Math.PI / 2 + (i * Math.PI) / 5;
    d += (i ? "L" : "M") + (cx + r * Math.cos(a)).toFixed(2) + " " + (cy + r * Math.sin(a)).toFixed(2);
  }
  return d + "Z";
}

/** A card element: a <button> for the player's hand, a <span> for display. */
export function cardElement(text, { button = false, small = false } = {}) {
  const node = document.createElement(button ? "button" : "span");
  node.className = "card" + (small ? " small" : "");
  const c = parseCard(text);
  node.dataset.card = c.text;
  if (button) {
    node.type = "button";
    node.setAttribute("aria-pressed", "false");
  } else {
    node.setAttribute("role", "img");
  }
  node.setAttribute("aria-label", cardName(text));
  node.title = c.text;
  node.append(cardSVG(text));
  return node;
}

/** A row of small cards for a play text ("7H 7S"), or a word for anything else ("pass"). */
export function playElement(text, { small = true } = {}) {
  const wrap = document.createElement("span");
  wrap.className = "play";
  const p = splitPlay(text);
  if (!p) {
    const w = document.createElement("span");
    w.className = "play-word";
    w.textContent = String(text);
    wrap.append(w);
    return wrap;
  }
  for (const c of p.cards) wrap.append(cardElement(c, { small }));
  if (p.reading) wrap.append(readingElement(p.reading));
  wrap.dataset.play = String(text);
  return wrap;
}

/** A play's reading after its cards: "as 4-6" ("作 4-6"), notation in either language. */
function readingElement(reading) {
  const r = document.createElement("span");
  r.className = "reading";
  r.textContent = t("c.as", { r: reading });
  return r;
}

const CARD_TOKEN = /(?<![A-Za-z0-9])(BJ|RJ|(?:10|[2-9JQKA])[SHDC])(?![A-Za-z0-9])/;

/**
 * Text with card tokens shown as suit icons: "bid 7H" -> "bid 7♥" (returns a DocumentFragment;
 * every piece of text goes in as text, never as markup). `plays` names the play texts the text
 * may hold ("3S 3H 2D 5S 5H as threes over fives"): a reading in one of them is notation, shown
 * after its cards in a `.reading` span ("as …" / "作 …"), never read as words of the sentence.
 */
export function richText(text, plays = []) {
  const frag = document.createDocumentFragment();
  const read = [...new Set(plays.filter((p) => p && splitPlay(String(p))?.reading))]
    .map(String).sort((a, b) => b.length - a.length);
  if (read.length) {
    const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    for (const part of String(text).split(new RegExp(`(${read.map(esc).join("|")})`))) {
      if (read.includes(part)) {
        const p = splitPlay(part);
        frag.append(richText(p.cards.join(" ")), " ", readingElement(p.reading));
      } else if (part) {
        frag.append(richText(part));
      }
    }
    return frag;
  }
  // upper case only: the engine writes cards "AS", and the word "as" in lower case; a card may
  // touch punctuation or Chinese words ("管上：7H 7S")
  for (const part of String(text).split(CARD_TOKEN)) {
    if (CARD_TOKEN.test(part)) {
      const c = parseCard(part);
      const s = document.createElement("span");
      s.className = "card-token " + inkClass(c);
      if (c.joker) {
        s.textContent = c.joker === "RJ" ? t("card.rj") : t("card.bj");
      } else {
        s.append(document.createTextNode(c.rank), suitIcon(c.suit, 12));
      }
      s.setAttribute("aria-label", cardName(part));
      frag.append(s);
    } else {
      frag.append(document.createTextNode(part));
    }
  }
  return frag;
}

/** The plays a reason's words name (its `cards` and `other`), for `richText`. */
function reasonPlays(reason) {
  const p = (reason && reason.params) || {};
  return [p.cards, p.other].filter(Boolean);
}

/** A reason ({code, params, text: {en, zh}}) in `lang`, its cards and plays as `richText`. */
export function reasonElement(reason, lang) {
  if (!reason) return document.createDocumentFragment();
  const text = (reason.text && (reason.text[lang] || reason.text.en)) || reason.code;
  return richText(text, reasonPlays(reason));
}

/** A trump like "2S" (level 2, spades) or "2" (no trump suit) as rich text. */
export function trumpElement(trump) {
  const span = document.createElement("span");
  span.className = "trump";
  if (!trump) { span.textContent = t("f.undecided"); return span; }
  const tr = String(trump);
  const suit = tr.slice(-1).toUpperCase();
  if (SUITS[suit] && tr.length >= 2) {
    span.append(document.createTextNode(tr.slice(0, -1) + " "), suitIcon(suit, 14),
                document.createTextNode(" " + t(`card.${suit}`)));
  } else {
    span.textContent = t("f.noTrumpSuit", { t: tr });
  }
  return span;
}

/** Multiset equality of two lists of card texts. */
export function sameCards(a, b) {
  if (a.length !== b.length) return false;
  const x = [...a].map((c) => parseCard(c).text).sort();
  const y = [...b].map((c) => parseCard(c).text).sort();
  return x.every((c, i) => c === y[i]);
}
