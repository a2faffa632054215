// The host's ready check on the table page (docs/protocol.md, "The ready check"). Once every
// seat is taken, the host's "Ready check" (ready_check) asks each seated person; each answers
// "I'm ready" or "Not ready" (ready) for their own seat and may change their mind while it
// runs. The seat list marks each answer; the box above it shows the question, the count and
// the seconds left; the host sees "Everyone is ready." The server ends the check after its
// time, when a seat or an option changes, and at the start (table.ready_check is then null).
// The host may start whatever the answers: with a check that shows somebody not ready, Start
// asks "Not everyone is ready. Start anyway?" first.
//
// table.js calls: render() after each state, mark(seat) for each row of the waiting seat list,
// start() for the Start button.

import { h } from "./common.js";
import { t } from "./i18n.js";

export function makeReady({ S, $, send, isHost }) {
  let deadline = null;      // performance.now() ms when the running check ends
  let announced = false;    // this page told its screen reader of the running check

  const check = () => (S.table && S.table.status === "waiting" && S.table.ready_check) || null;
  const answerOf = (rc, seat) => rc.answers.find((a) => a.seat === seat);
  const asked = (rc) => S.mySeat !== null && S.mySeat !== undefined && !!answerOf(rc, S.mySeat);

  /** The mark of a seat's answer in the seat list (null: no check, or not asked). */
  function mark(seat) {
    const rc = check();
    const a = rc && answerOf(rc, seat.seat);
    if (!a) return null;
    const key = a.ready === true ? "yes" : a.ready === false ? "no" : "wait";
    return [" ", h("span", { class: `tag ready-mark ${key}`, dataset: { ready: key } },
                   t(`rc.mark.${key}`))];
  }

  function secondsLeft() {
    return deadline === null ? null : Math.max(0, Math.ceil((deadline - performance.now()) / 1000));
  }

  function answer(ready) {
    send({ type: "ready", ready });
  }

  /** The box above the seat list and the host's button. */
  function render() {
    const rc = check();
    const box = $("ready-box");
    const host = isHost();
    const tb = S.table;
    const full = !!(tb && tb.seats && tb.seats.every((s) => s.kind !== "empty"));
    const btn = $("ready-check");
    btn.hidden = !host || !tb || tb.status !== "waiting";
    btn.disabled = !full || !!rc || S.stopped;
    document.body.dataset.ready = rc ? (rc.all_ready ? "all" : "asking") : "";
    if (!rc) {
      deadline = null;
      announced = false;
      box.hidden = true;
      box.replaceChildren();
      return;
    }
    deadline = performance.now() + rc.left * 1000;
    const n = rc.answers.filter((a) => a.ready === true).length;
    const parts = [];
    if (asked(rc) && !host) {
      const mine = answerOf(rc, S.mySeat).ready;
      parts.push(h("p", { class: "ready-question", id: "ready-question" }, t("rc.question")),
        h("div", { class: "row ready-answers" },
          h("button", { type: "button", id: "ready-yes", class: mine === true ? "primary" : null,
                        "aria-pressed": String(mine === true), onclick: () => answer(true) },
            t("rc.yes")),
          h("button", { type: "button", id: "ready-no", "aria-pressed": String(mine === false),
                        onclick: () => answer(false) }, t("rc.no"))));
      if (mine !== null) parts.push(h("p", { class: "muted" }, t(mine ? "rc.youYes" : "rc.youNo")));
      if (!announced) $("announce").textContent = t("rc.say");
      announced = true;
    }
    parts.push(h("p", { class: "ready-count", id: "ready-count" },
      rc.all_ready ? h("strong", { id: "ready-all" }, t("rc.all"))
        : t("rc.count", { n, m: rc.answers.length }),
      " ", h("span", { class: "muted", id: "ready-left" }, t("rc.left", { s: secondsLeft() }))));
    box.replaceChildren(...parts);
    box.hidden = false;
  }

  /** The seconds left, once a second (the server ends the check; this only counts). */
  function tick() {
    const el = $("ready-left");
    if (el && deadline !== null && !$("ready-box").hidden) el.textContent = t("rc.left", { s: secondsLeft() });
  }

  /** The host's Start: straight away, or after a confirmation when not everyone is ready. */
  function start() {
    const rc = check();
    if (!rc || rc.all_ready) { send({ type: "start" }); return; }
    let d = $("start-dialog");
    if (!d) {
      d = h("dialog", { id: "start-dialog", class: "dialog", "aria-labelledby": "start-dialog-title" });
      document.body.append(d);
    }
    d.replaceChildren(h("h2", { id: "start-dialog-title" }, t("rc.confirmTitle")),
      h("p", {}, t("rc.confirmText")),
      h("div", { class: "row" },
        h("button", { type: "button", class: "primary", id: "start-anyway",
                      onclick: () => { d.close(); send({ type: "start" }); } }, t("rc.startAnyway")),
        h("button", { type: "button", id: "start-cancel", onclick: () => d.close() }, t("h.cancel"))));
    d.showModal();
  }

  setInterval(tick, 1000);
  return { render, mark, start, ask: () => send({ type: "ready_check" }) };
}
