// The Rematch button on the table page (docs/protocol.md, "Rematch"). Once a match has ended,
// every seated person gets "Rematch" in the result panel; a tap asks for the next match
// (rematch). It starts when every present person has asked (alone with bots: at once); until
// then the panel says who asked and who has not yet. The host's "Start a new match" (host.js)
// still starts it at once. This module also remembers the game the player plays (lastgame.js),
// so that the lobby's Play now starts from it.
//
// table.js calls: render() after it drew the result panel.

import { displayName, h } from "./common.js";
import { t } from "./i18n.js";
import { rememberGame } from "./lastgame.js";

export function makeRematch({ S, $, send }) {
  const seated = () => S.mySeat !== null && S.mySeat !== undefined;

  function names(tb, seats) {
    return seats.map((i) => (i === S.mySeat ? t("t.you")
      : (tb.seats[i] && displayName(tb.seats[i])) || t("t.seatN", { n: i + 1 }))).join(", ");
  }

  function render() {
    const tb = S.table;
    if (!tb) return;
    if (tb.status === "playing" && seated() && tb.game) rememberGame(tb.game, tb.players);
    const row = $("replay-link") && $("replay-link").parentElement;
    if (tb.status !== "over" || !row || S.stopped) return;
    const rm = tb.rematch || { asked: [], waiting: [] };
    const mine = seated() && rm.asked.includes(S.mySeat);
    if (seated()) {
      row.prepend(h("button", {
        type: "button", class: "primary", id: "rematch", disabled: mine ? true : undefined,
        "aria-describedby": rm.asked.length ? "rematch-line" : undefined,
        onclick: () => send({ type: "rematch" }),
      }, t(mine ? "rm.asked" : "rm.ask")));
    }
    if (rm.asked.length) {
      const text = t("rm.askedBy", { names: names(tb, rm.asked) }) +
        (rm.waiting.length ? " " + t("rm.waiting", { names: names(tb, rm.waiting) }) : "");
      row.after(h("p", { class: "muted rematch-line", id: "rematch-line", role: "status" }, text));
    }
  }

  return { render };
}
