// The current trick on the cloth: each seat's play lies in front of that seat. In the
// climbing games the play to beat stands out and a pass is a quiet mark; in Sheng ji the lead
// is marked. The last trick opens on demand over the table.

import { playElement } from "./cards.js";
import { gameFamily, h } from "./common.js";
import { t } from "./i18n.js";
import { relative } from "./table-layout.js";
import { exchangeText, lastTrick, seatName, trickList } from "./view.js";

export function renderTableTrick(view, ctx) {
  const fam = gameFamily(view.game);
  const box = h("div", { class: "trick", id: "trick", role: "group", "aria-label": t("c.currentTrick") });
  const n = view.players;
  const plays = view.trick || [];
  if (view.phase === "exchange" && view.exchange) {
    box.append(h("div", { class: "trick-center exchange-text" }, exchangeText(view, ctx)));
    return box;
  }
  // each seat's latest play of this trick (a climbing trick may come round several times)
  const latest = new Map();
  plays.forEach(([s, text], i) => latest.set(s, { text, i }));
  let toBeat = -1;
  if (fam !== "sheng-ji") {
    for (let i = plays.length - 1; i >= 0; i--) if (plays[i][1] !== "pass") { toBeat = i; break; }
  }
  for (const [s, { text, i }] of latest) {
    const pass = text === "pass";
    const many = pass ? 0 : String(text).split(" as ")[0].trim().split(/\s+/).length;
    const cls = ["spot", pass ? "pass" : "", many > 8 ? "longer" : many > 4 ? "long" : "",
      i === toBeat ? "to-beat" : "",
      fam === "sheng-ji" && i === 0 ? "lead" : "",
      i === plays.length - 1 ? "latest" : ""].filter(Boolean).join(" ");
    box.append(h("div", { class: cls, dataset: { seat: String(s), rel: String(relative(s, ctx.mySeat, n)) } },
      h("span", { class: "visually-hidden" }, seatName(ctx, s) + ": "),
      pass ? h("span", { class: "pass-mark" }, t("c.passes")) : playElement(text)));
  }
  if (!plays.length && view.phase === "play") {
    box.append(h("div", { class: "trick-center trick-empty" }, t("c.noCards")));
  }
  if (fam === "zheng-fen" && typeof view.table_points === "number" && view.table_points) {
    box.append(h("div", { class: "trick-center table-points" }, t("c.tablePoints", { n: view.table_points })));
  }
  return box;
}

/** The last finished trick, shown over the table while the player asks for it. */
export function renderLastTrickBox(box, view, ctx) {
  const last = lastTrick(view);
  if (!last) {
    box.replaceChildren(h("div", { class: "trick-label" }, t("c.lastTrick")),
                        h("div", {}, t("t.noLastTrick")));
    box.dataset.winner = "";
    return;
  }
  box.replaceChildren(
    h("div", { class: "trick-label" }, t("c.lastTrick"),
      last.winner !== null ? t("c.wonBy", { name: seatName(ctx, last.winner) }) : ""),
    trickList(last.plays, ctx, { old: true }));
  box.dataset.winner = last.winner === null ? "" : String(last.winner);
}

let lastMoved = "";

/**
 * The newest play comes from where it was played: from the seat (or from your hand) to its
 * place in front of the seat. Pure decoration on the compositor: input is never held up, and
 * with reduced motion (the setting or the system's) nothing moves.
 */
export function moveLatest(area, key, { reduced = false, fromHand = null } = {}) {
  if (!key || key === lastMoved) return;
  lastMoved = key;
  const sp = area.querySelector(".spot.latest:not(.pass)");
  if (!sp || reduced || !sp.animate) return;
  const seat = area.querySelector(`.seat-box[data-seat="${sp.dataset.seat}"]`);
  const from = (fromHand || seat)?.getBoundingClientRect();
  if (!from) return;
  const to = sp.getBoundingClientRect();
  const dx = from.left + from.width / 2 - (to.left + to.width / 2);
  const dy = from.top + from.height / 2 - (to.top + to.height / 2);
  const s = Number(sp.dataset.scale || 1);    // a play drawn smaller to fit (placeTable)
  sp.animate([
    { transform: `translate(calc(-50% + ${dx}px), calc(-50% + ${dy}px)) scale(${0.7 * s})`, opacity: 0.4 },
    { transform: `translate(-50%, -50%) scale(${s})`, opacity: 1 },
  ], { duration: 240, easing: "ease-out" });
}

/**
 * A finished trick goes to its winner: the plays that were on the cloth (`old`: their nodes
 * and where they were) slide to the winner's seat and fade. Nothing moves with reduced motion.
 */
export function sweepTrick(area, old, winnerSeat, { reduced = false } = {}) {
  if (reduced || !old.length || winnerSeat === null || winnerSeat === undefined) return;
  const target = area.querySelector(`.seat-box[data-seat="${winnerSeat}"]`);
  if (!target || !old[0].node.animate) return;
  let layer = area.querySelector(".sweep");
  if (!layer) {
    layer = h("div", { class: "sweep", "aria-hidden": "true" });
    area.append(layer);
  }
  const box = area.getBoundingClientRect();
  const to = target.getBoundingClientRect();
  for (const { node, rect } of old) {
    node.classList.remove("latest");
    node.style.left = `${rect.left - box.left + rect.width / 2}px`;
    node.style.top = `${rect.top - box.top + rect.height / 2}px`;
    layer.append(node);
    const dx = to.left + to.width / 2 - (rect.left + rect.width / 2);
    const dy = to.top + to.height / 2 - (rect.top + rect.height / 2);
    const s = Number(node.dataset.scale || 1);
    const a = node.animate([
      { transform: `translate(-50%, -50%) scale(${s})`, opacity: 1 },
      { transform: `translate(calc(-50% + ${dx}px), calc(-50% + ${dy}px)) scale(${0.5 * s})`, opacity: 0 },
    ], { duration: 320, easing: "ease-in", fill: "forwards" });
    const done = () => node.remove();
    a.onfinish = done;
    a.oncancel = done;
  }
}
