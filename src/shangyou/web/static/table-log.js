// The game log and the chat of the table page: one line per event of the match, kept in the
// tab's sessionStorage across reloads, and the chat lines with each speaker's role.

import { gameFamily, h } from "./common.js";
import { t } from "./i18n.js";
import { eventText } from "./view.js";

const MAX_LINES = 400;
const MAX_CHAT = 80;

/** The events of the current match, as the log shows them. */
export class GameLog {
  constructor(key) {
    this.key = key;
    this.match = null;
    this.lines = [];
    this.moves = 0;
  }

  load() {
    try {
      const d = JSON.parse(sessionStorage.getItem(this.key) || "null");
      if (d && Array.isArray(d.lines)) Object.assign(this, { match: d.match ?? null,
        lines: d.lines, moves: d.moves || 0 });
    } catch { /* nothing kept */ }
  }

  save() {
    const d = { match: this.match, lines: this.lines, moves: this.moves };
    try { sessionStorage.setItem(this.key, JSON.stringify(d)); } catch { /* full */ }
  }

  /**
   * Add the events of one state of match `match`; false when they were logged already (a
   * state sent again after a reconnect).
   */
  add(events, moveCount, match) {
    if (match !== this.match) Object.assign(this, { match, lines: [], moves: 0 });
    if (events.length && typeof moveCount === "number" && moveCount <= this.moves &&
        this.lines.length) {
      return false;
    }
    for (const ev of events) this.lines.push(ev);
    if (typeof moveCount === "number" && events.length) this.moves = moveCount;
    if (this.lines.length > MAX_LINES) this.lines.splice(0, this.lines.length - MAX_LINES);
    this.save();
    return true;
  }

  /**
   * The events to show: Sheng ji's passes during the deal are left out (each player may bid
   * at each dealt card: the log keeps the bids and who declared, not one "passes" per card).
   */
  shown(game) {
    if (gameFamily(game) !== "sheng-ji") return this.lines;
    let dealing = true;
    const out = [];
    for (const ev of this.lines) {
      const kind = ev.event || ev.type;
      const pass = kind === "pass" || (kind === "move" && ev.move === "pass");
      if (dealing && pass) continue;
      if (kind === "trump" || kind === "no bid" || kind === "buried") dealing = false;
      if (kind === "hand over" || kind === "redeal") dealing = true;
      out.push(ev);
    }
    return out;
  }

  /** Draw the log into the list `el`, each line worded for the context `c`. */
  render(el, game, c) {
    el.replaceChildren(...this.shown(game).map((ev) => h("li", {
      dataset: { action: String(ev.event || ev.type || ""), seat: ev.seat ?? "" },
    }, eventText(ev, c))));
    el.scrollTop = el.scrollHeight;
  }
}

/** Add a chat line to the list `el`: the speaker's name and role, the text as plain text. */
export function addChat(el, msg) {
  const li = document.createElement("li");
  const f = document.createElement("span");
  f.className = "from";
  const name = String(msg.from ?? "?");
  const role = ["host", "player", "spectator"].includes(msg.role) ? msg.role : null;
  f.textContent = role ? t("t.chatFrom", { name, role: t(`role.${role}`) }) : `${name}:`;
  if (role) li.dataset.role = role;
  const tx = document.createElement("span");
  tx.className = "text";
  tx.textContent = String(msg.text ?? "");
  li.append(f, tx);
  el.append(li);
  while (el.children.length > MAX_CHAT) el.firstChild.remove();
  el.scrollTop = el.scrollHeight;
}
