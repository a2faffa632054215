// Facts about the legal moves that need no page state (the table page's helpers).

import { richText, sameCards, splitPlay } from "./cards.js";
import { gameFamily } from "./common.js";
import { has, t } from "./i18n.js";

/** "cards" for a play of cards, else the move's first word ("pass", "bid", "give"...). */
export function kindOf(move) {
  return splitPlay(move) ? "cards" : move.split(" ")[0].toLowerCase();
}

function rankKey(cards) {
  return cards.map((c) => (/^(BJ|RJ)$/i.test(c) ? c.toUpperCase() : c.slice(0, -1).toUpperCase()))
    .sort().join(" ");
}

/**
 * Of the legal card plays `plays`, those made of exactly the cards `sel`. Where suits do not
 * matter the engine lists a play once, with canonical cards, and accepts any held cards of the
 * same ranks: such a play is offered with the player's own cards (and its reading).
 */
export function playsMadeOf(plays, sel, game) {
  const exact = plays.filter((m) => sameCards(splitPlay(m).cards, sel));
  if (exact.length || gameFamily(game) === "sheng-ji") return exact;
  const key = rankKey(sel);
  const out = [];
  for (const m of plays) {
    const p = splitPlay(m);
    if (rankKey(p.cards) !== key) continue;
    const text = sel.join(" ") + (p.reading ? ` as ${p.reading}` : "");
    if (!out.includes(text)) out.push(text);
  }
  return out;
}

/** The trick in progress, as a key: the auto-pass toggle holds until it changes. */
export function trickKey(v) {
  if (!v) return "";
  const done = gameFamily(v.game) === "sheng-ji" ? (v.tricks || []).length : (v.played || []).length;
  return `${v.hand_number}|${done}`;
}

/** A move in the page's words: its verb translated ("bid 2S": "Bid 2♠", "叫主 ♠2"; "pass"),
 * the cards as rich text; a play of cards is its cards. A DocumentFragment. */
export function moveText(m) {
  const frag = document.createDocumentFragment();
  if (m === "pass") { frag.append(t("t.pass")); return frag; }
  const [verb, ...rest] = String(m).split(" ");
  const key = `mv.${verb.toLowerCase()}`;
  if (has(key)) frag.append(t(key), " ", richText(rest.join(" ")));
  else frag.append(richText(m));
  return frag;
}
