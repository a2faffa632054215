// The seats around the table: each shows its name, a small fan of card backs with the count,
// and its state (to play, with the turn timer's ring; passed; out and its place; declarer,
// team, friend found; away, or a bot playing for the person).

import { gameFamily, h, ordinal, seatName } from "./common.js";
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
  const fam = gameFamily(view.game);
  const wrap = h("div", { class: "seats", id: "seat-boxes" });
  const n = view.players;
  const finished = view.finished || [];
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
    if (fam !== "sheng-ji") {
      const place = finished.indexOf(s);
      if (place >= 0) facts.append(h("span", { class: "place" }, t("c.out", { ord: ordinal(place + 1) })));
      if ((view.passed || []).includes(s)) facts.append(h("span", { class: "passed" }, t("c.passed")));
      if (view.scores) facts.append(h("span", { class: "score" }, t("c.score", { n: view.scores[s] })));
      if (view.won_points) facts.append(h("span", { class: "won" }, t("c.won", { n: view.won_points[s] })));
      if (view.teams) {
        const tm = view.teams.findIndex((team) => team.includes(s));
        if (tm >= 0) facts.append(h("span", { class: "team" }, t("c.team", { n: tm + 1 })));
      }
      if (view.dealer === s) facts.append(h("span", { class: "dealer" }, t("c.dealer")));
    } else {
      if (view.levels) facts.append(h("span", { class: "level" }, t("c.level", { n: view.levels[s] })));
      if (view.declarer === s) facts.append(h("span", { class: "declarer" }, t("c.declarer")));
      else if ((view.friends || []).includes(s)) facts.append(h("span", { class: "friend" }, t("c.friend")));
      else if (view.teams && view.declarer !== null && view.declarer !== undefined) {
        const team = view.teams.find((tm) => tm.includes(view.declarer));
        if (team && team.includes(s)) facts.append(h("span", { class: "friend" }, t("c.declSide")));
      }
      if (view.points_won && view.points_won[s]) facts.append(h("span", { class: "won" }, t("c.pts", { n: view.points_won[s] })));
    }
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
