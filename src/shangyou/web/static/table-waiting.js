// The table page before the match: the list of seats (sit down, move, leave; the host's actions
// on each seat are host.js's, the ready marks table-ready.js's), the player's name, the bots'
// level and "Fill with bots", and whether Start may be pressed.

import { api, displayName, h } from "./common.js";
import * as Host from "./host.js";
import { t } from "./i18n.js";

const NAME_KEY = "shangyou.name";
const BOTS_KEY = "shangyou.bots";

/**
 * The waiting room over the page `P`: its state `S`, `$` (an element by id), `send(msg)`,
 * `seated()`, `render()` (the whole page), `forgetToken()` (the seat token, once the seat is
 * left) and `mark(seat)` (a seat's mark of the ready check).
 */
export function makeWaiting(P) {
  const { S, $ } = P;

  /** The name this player gives: the field's, else the one kept from a visit before. */
  function myName() {
    const v = ($("name").value || "").trim().slice(0, 24);
    return v || localStorage.getItem(NAME_KEY) || "";
  }

  function sit(seat) {
    const name = myName();
    localStorage.setItem(NAME_KEY, name);
    P.send({ type: "sit", seat, name });
  }

  function leave() {
    P.send({ type: "leave" });
    P.forgetToken();      // the host's token stays the host's
    S.mySeat = null;
    P.render();
  }

  /** The list of seats before the match, and whether Start and Fill with bots may be pressed. */
  function render(show) {
    const tb = S.table;
    $("waiting").hidden = !(show && tb && tb.status === "waiting");
    if (!tb || !tb.seats) return;
    const list = $("seat-list");
    const me = P.seated();
    list.replaceChildren(...tb.seats.map((s) => {
      const label = s.kind === "empty" ? t("t.empty") : `${displayName(s)}${s.kind === "bot" ? " " + t("t.botTag") : ""}` +
        (s.kind === "human" && s.connected === false ? " " + t("t.awayTag") : "");
      const li = h("li", { dataset: { seat: String(s.seat) } },
        h("span", { class: "seat-label" }, t("t.seatN", { n: s.seat + 1 }), ": ", label,
          s.seat === S.mySeat ? ` — ${t("t.you")}` : "",
          s.kind === "human" && s.seat === tb.host ? [" ", h("span", { class: "tag host" }, t("t.hostTag"))] : null,
          P.mark(s)));
      if (s.kind === "empty" && !S.kicked) {
        li.append(h("button", { type: "button", class: "sit", dataset: { seat: String(s.seat) },
          onclick: () => sit(s.seat) }, me ? t("t.moveHere") : t("t.sitHere")));
      }
      if (s.seat === S.mySeat) {
        li.append(h("button", { type: "button", class: "leave", onclick: leave }, t("t.leave")));
      }
      const acts = Host.seatActions(s);
      if (acts.length) li.append(h("span", { class: "row host-acts" }, ...acts));
      return li;
    }));
    const full = tb.seats.every((s) => s.kind !== "empty");
    // the host sets the table up (an older server: a player, or anyone while nobody sits)
    const mayAct = Host.H.proto ? Host.H.me : me || !tb.seats.some((s) => s.kind === "human");
    $("start").disabled = !full || !mayAct || S.stopped;
    $("fill-bots").disabled = full || !mayAct || S.stopped;
  }

  /** The name field and the bots' level, kept across visits; the levels the server offers. */
  function init() {
    $("name").value = localStorage.getItem(NAME_KEY) || "";
    $("name").addEventListener("change", () => {
      const v = $("name").value.trim().slice(0, 24);
      if (v) localStorage.setItem(NAME_KEY, v);
    });
    const lvl = localStorage.getItem(BOTS_KEY);
    const pick = () => {
      if (lvl && [...$("bot-level").options].some((o) => o.value === lvl)) $("bot-level").value = lvl;
    };
    pick();
    // levels of other installed packages (GET /api/bots) join the built-in ones
    api("/api/bots").then(({ levels }) => {
      const have = new Set([...$("bot-level").options].map((o) => o.value));
      for (const l of levels) if (!have.has(l)) $("bot-level").append(h("option", { value: l }, l));
      pick();
    }).catch(() => {});
    $("bot-level").addEventListener("change", () => localStorage.setItem(BOTS_KEY, $("bot-level").value));
    $("fill-bots").addEventListener("click", () => P.send({ type: "bots", level: $("bot-level").value }));
  }

  /** The table's bot level in the list, unless this player chose one before. */
  function onWelcome() {
    if (S.table && S.table.bot_level && !localStorage.getItem(BOTS_KEY)) {
      $("bot-level").value = S.table.bot_level;
    }
  }

  return { myName, render, init, onWelcome };
}
