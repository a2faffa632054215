// The seats around the table: each shows its name, a small fan of card backs with the count,
// and its state (to play, with the turn timer's ring; passed; out and its place; declarer,
// team, friend found; away, or a bot playing for the person).

import { h, seatFacts, seatName } from "./common.js";
import { t } from "./i18n.js";
import { relative } from "./table-layout.js";

function fan(count) {
  const backs = Math.max(0, Math.min(5, Number(count) || 0));
  const box = h("span", { class: "fan", "aria-hidden": "true" });
  for (let i = 0; i < backs; i++) box.append(h("span", { class: "back", style: `--i:${i - (backs - 1) / 2}` }));
  return box;
}

/** The seat boxes of the table; ctx: {names, mySeat, seats, host}. */
export function renderTableSeats(view, ctx) {
  const wrap = h("div", { class: "seats", id: "seat-boxes" });
  const n = view.players;
  const active = view.phase !== "over" && !view.result ? view.to_act : null;
  for (let s = 0; s < n; s++) {
    const info = ctx.seats ? ctx.seats[s] : null;
    const isActive = active === s;
    const rel = relative(s, ctx.mySeat, n);
    const box = h("div", {
      class: "seat-box" + (isActive ? " to-act" : "") + (ctx.mySeat === s ? " me" : ""),
      dataset: { seat: String(s), rel: String(rel) },
      "aria-current": isActive ? "true" : undefined,
    });
    box.append(h("div", { class: "seat-name" },
      h("span", { class: "name" }, seatName(ctx, s)),
      ctx.mySeat === s ? h("span", { class: "tag you" }, t("t.you")) : null,
      info && info.kind === "bot" ? h("span", { class: "tag bot" }, t("c.bot")) : null,
      ctx.host === s && info && info.kind === "human" ? h("span", { class: "tag host" }, t("t.hostTag")) : null,
      info && info.kind === "human" && info.connected === false
        ? h("span", { class: "tag away", title: t("c.disconnected") }, t("c.away")) : null,
      info && info.kind === "human" && info.autoplay
        ? h("span", { class: "tag autoplay", title: t("t.botPlayingTitle") }, t("t.botPlaying")) : null));
    const count = (view.counts || [])[s];
    const facts = h("div", { class: "seat-facts" },
      h("span", { class: "count", title: t("c.cardsInHand") }, fan(count),
        h("span", { class: "count-n" }, String(count ?? "?")),
        h("span", { class: "visually-hidden" }, " " + t("c.cardsInHand"))));
    facts.append(...seatFacts(view, s));
    box.append(facts);
    if (isActive) box.append(h("span", { class: "turn-mark" }, t("c.toPlay")));
    wrap.append(box);
  }
  return wrap;
}

/** The turn timer's ring on the seat to play: the share of the time left (0..1), or none. */
export function setTimerRing(seat, share) {
  for (const b of document.querySelectorAll("#seat-boxes .seat-box")) {
    const on = share !== null && String(seat) === b.dataset.seat;
    b.classList.toggle("timed", on);
    if (on) b.style.setProperty("--left", String(Math.max(0, Math.min(1, share))));
    else b.style.removeProperty("--left");
  }
}
