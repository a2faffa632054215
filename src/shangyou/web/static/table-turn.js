// Turn awareness on the table page: the title marker, the screen reader's announcement, the
// "your turn" sound (sound.js), and the room's turn timer (its countdown and the ring on the seat to play).

import { gameTitle } from "./common.js";
import { t } from "./i18n.js";
import { playSound } from "./sound.js";
import { seatLabel, setTimerRing } from "./table-seats.js";

/** The turn functions over the page `P`: its state `S`, `$`, `myTurn` and `ctx`. */
export function makeTurn(P) {
  const { S, $, myTurn, ctx } = P;

  /** Turn awareness: the title marker, the announcement, the sound, the timer. */
  function renderTurn() {
    const mine = myTurn();
    const base = `${t("app.name")} · ${S.table ? gameTitle(S.table.game) : t("page.table")}`;
    document.title = mine ? `● ${t("t.yourTurn")} · ${base}` : base;
    document.body.dataset.myTurn = mine ? "1" : "";
    if (mine && !S.wasMyTurn) {
      $("announce").textContent = t("t.yourTurnSay");
      playSound("turn");
    } else if (!mine && S.wasMyTurn) {
      $("announce").textContent = "";
    }
    S.wasMyTurn = mine;
    tickTimer();
  }

  function tickTimer() {
    const box = $("turn-timer");
    const tr = S.turn;
    const v = S.view;
    if (!tr || tr.deadline === null || !v || v.result || v.phase === "over") {
      box.hidden = true;
      box.dataset.left = "";
      setTimerRing(null, null);
      return;
    }
    const left = Math.max(0, Math.ceil((tr.deadline - performance.now()) / 1000));
    const total = (S.table && S.table.room && S.table.room.turn_timer) || 0;
    setTimerRing(tr.seat, total ? (tr.deadline - performance.now()) / 1000 / total : null);
    box.hidden = false;
    box.dataset.left = String(left);
    box.dataset.seat = String(tr.seat);
    box.setAttribute("aria-label", t("t.timerLabel"));
    box.textContent = `${t("t.turnOf", { name: seatLabel(ctx(), tr.seat) })}: ${t("t.timer", { s: left })}`;
    box.classList.toggle("urgent", left <= 5);
  }

  return { renderTurn, tickTimer };
}
