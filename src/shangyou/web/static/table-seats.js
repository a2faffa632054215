// The seats around the table. Each seat box has two lines: the seat's short name (a bot is
// "Bot 3", a person's name is cut with an ellipsis where it is too long), then small chips:
// the cards in hand, its role (you, host, bot, away, a bot playing for the person) and its
// game (to play, passed, out and its place, team, level, declarer, friend, points). The chips
// wrap onto another line rather than squeeze the name. A tap (or Enter) on a seat opens a
// small card with the full name and every chip in words; the title says the same on hover.
//
// The prompt, the strip and the turn timer name a seat with `seatLabel`, the name the seat
// shows ("you" for the viewer's own seat), so a player finds the seat they read about.

import { displayName, h, localName } from "./common.js";
import { t } from "./i18n.js";
import { relative } from "./table-layout.js";
import { seatFacts } from "./view.js";

/** The short name of a seat of `table.seats`: "Bot 3" for a bot, the person's name otherwise
 * (the seat box cuts a long one with an ellipsis). */
export function shortName(info) {
  if (!info || info.kind === "empty") return null;
  if (info.kind === "bot") return t("bot.short", { n: info.seat + 1 });
  return localName(info.name) || t("t.seatN", { n: info.seat + 1 });
}

/** How the page names a seat in words: "you" for the viewer, else the name its box shows. */
export function seatLabel(ctx, seat) {
  if (seat === null || seat === undefined) return "?";
  if (ctx.mySeat !== null && ctx.mySeat !== undefined && seat === ctx.mySeat) return t("t.you");
  const n = ctx.names && ctx.names[seat];
  return n ? String(n) : t("t.seatN", { n: seat + 1 });
}

// small line icons (their words are in the chip's aria-label and title)
const ICONS = {
  bot: "M7 1.5v2M3.5 5h7a1 1 0 0 1 1 1v5a1 1 0 0 1-1 1h-7a1 1 0 0 1-1-1V6a1 1 0 0 1 1-1zM5.3 8h.01M8.7 8h.01M1 7.5v2M13 7.5v2",
  host: "M2 11h10M2.5 10 1.5 4l3 2.5L7 2l2.5 4.5 3-2.5-1 6z",
};

function icon(name) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 14 14");
  svg.setAttribute("width", "12");
  svg.setAttribute("height", "12");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("class", "chip-icon");
  const p = document.createElementNS(ns, "path");
  p.setAttribute("d", ICONS[name]);
  svg.append(p);
  return svg;
}

function fan(count) {
  const backs = Math.max(0, Math.min(3, Number(count) || 0));
  const box = h("span", { class: "fan", "aria-hidden": "true" });
  for (let i = 0; i < backs; i++) box.append(h("span", { class: "back", style: `--i:${i - (backs - 1) / 2}` }));
  return box;
}

/** A chip: `text` shown (or an icon), `words` for the title and a screen reader. */
function chip(cls, text, words, iconName) {
  return h("span", { class: `tag chip ${cls}`, title: words, "aria-label": words, role: "img",
                     dataset: { role: cls } },
    iconName ? icon(iconName) : null, text ? h("span", { "aria-hidden": "true" }, text) : null);
}

/** The role chips of a seat: you, host, bot, away, a bot playing for the person. */
function roleChips(s, info, ctx) {
  const out = [];
  if (ctx.mySeat === s) out.push(chip("you", t("t.you"), t("t.you")));
  if (info && info.kind === "bot") out.push(chip("bot", "", t("c.bot"), "bot"));
  if (ctx.host === s && info && info.kind === "human") out.push(chip("host", "", t("t.hostTag"), "host"));
  if (info && info.kind === "human" && info.connected === false) {
    out.push(chip("away", t("c.away"), t("c.disconnected")));
  }
  if (info && info.kind === "human" && info.autoplay) {
    out.push(chip("autoplay", t("t.botPlaying"), t("t.botPlayingTitle")));
  }
  return out;
}

let openSeat = null;      // the seat whose card of details is open (a tap on a seat)

/** The seat boxes of the table; ctx: {names, full, mySeat, seats, host}. */
export function renderTableSeats(view, ctx) {
  const wrap = h("div", { class: "seats", id: "seat-boxes" });
  const n = view.players;
  const active = view.phase !== "over" && !view.result ? view.to_act : null;
  if (openSeat !== null && openSeat >= n) openSeat = null;
  // a number every seat shares (score 0 at the start, one level for all) tells no seat apart:
  // it is left to the strip and the side panel
  const same = new Set();
  const uniform = (xs) => Array.isArray(xs) && xs.length > 1 && xs.every((x) => x === xs[0]);
  if (uniform(view.scores)) same.add("score");
  if (uniform(view.won_points)) same.add("won");
  if (uniform(view.levels)) same.add("level");
  for (let s = 0; s < n; s++) {
    const info = ctx.seats ? ctx.seats[s] : null;
    const isActive = active === s;
    const rel = relative(s, ctx.mySeat, n);
    const name = (ctx.names && ctx.names[s]) || t("t.seatN", { n: s + 1 });
    const full = (ctx.full && ctx.full[s]) || displayName(info) || name;
    const count = (view.counts || [])[s];
    const chips = [
      h("span", { class: "tag chip count", title: t("c.cardsInHand"), dataset: { role: "count" } },
        fan(count), h("span", { class: "count-n" }, String(count ?? "?")),
        h("span", { class: "visually-hidden" }, " " + t("c.cardsInHand"))),
      ...roleChips(s, info, ctx),
    ];
    for (const f of seatFacts(view, s)) {
      if (same.has(f.className)) continue;
      f.classList.add("tag", "chip");
      f.dataset.role = f.className.split(" ")[0];
      chips.push(f);
    }
    const words = [full, ...chips.map((c) => c.getAttribute("aria-label") || c.textContent.trim())];
    if (isActive) words.push(t("c.toPlay"));
    const box = h("div", {
      class: "seat-box" + (isActive ? " to-act" : "") + (ctx.mySeat === s ? " me" : ""),
      dataset: { seat: String(s), rel: String(rel), full },
      "aria-current": isActive ? "true" : undefined,
      title: words.join(" · "),
      role: "button", tabindex: "0", "aria-expanded": String(openSeat === s),
    },
      h("div", { class: "seat-name" }, h("span", { class: "name" }, name)),
      h("div", { class: "seat-facts" }, ...chips));
    if (isActive) box.append(h("span", { class: "turn-mark" }, t("c.toPlay")));
    if (openSeat === s) {
      box.append(h("div", { class: "seat-pop", id: "seat-pop", role: "tooltip" },
        h("strong", { class: "pop-name" }, full), h("span", {}, words.slice(1).join(" · "))));
    }
    const toggle = () => {
      openSeat = openSeat === s ? null : s;
      box.dispatchEvent(new CustomEvent("seatpop", { bubbles: true }));
    };
    box.addEventListener("click", toggle);
    box.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); e.stopPropagation(); toggle(); }
      else if (e.key === "Escape" && openSeat !== null) {
        openSeat = null;
        box.dispatchEvent(new CustomEvent("seatpop", { bubbles: true }));
      }
    });
    wrap.append(box);
  }
  return wrap;
}

/** Close the card of details (a tap elsewhere, Escape); true when one was open. */
export function closeSeatPop() {
  const was = openSeat !== null;
  openSeat = null;
  return was;
}

/** Turn the open card of details towards the middle of the table, so it stays in view. */
export function placeSeatPop(area) {
  const pop = area.querySelector("#seat-pop");
  if (!pop) return;
  const box = pop.parentElement;
  pop.classList.toggle("up", box.offsetTop + box.offsetHeight / 2 > area.clientHeight / 2);
  pop.classList.toggle("left", box.offsetLeft + box.offsetWidth / 2 > area.clientWidth / 2);
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

/** A seat named in running text (the prompt, the strip): its label in a span that carries the
 * seat, so the words and the seat box can be matched. */
export function seatRef(ctx, seat) {
  return h("span", { class: "seat-ref", dataset: { seat: String(seat) } }, seatLabel(ctx, seat));
}

/** The text of `key` with the seat's name (`{name}`) as a `seatRef`; `params` fill the rest. */
export function withSeat(key, ctx, seat, params = {}) {
  const parts = t(key, { ...params, name: "\u0002" }).split("\u0002");
  const out = [parts[0]];
  for (let i = 1; i < parts.length; i++) out.push(seatRef(ctx, seat), parts[i]);
  return out;
}
