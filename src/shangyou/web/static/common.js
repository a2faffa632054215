// Shared helpers: HTTP calls, small DOM builders, and the rendering of a game view (seats,
// trick, game facts, end-of-hand summary, match result) used by the table and replay pages.
// Every string that comes from the server or another player goes into the page as text.

import { cardElement, playElement, richText, trumpElement } from "./cards.js";

export async function api(path, { method = "GET", body } = {}) {
  const res = await fetch(path, {
    method,
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data = null;
  try { data = await res.json(); } catch { data = null; }
  if (!res.ok) {
    const msg = errorText(data) || `${res.status} ${res.statusText}`;
    const err = new Error(msg);
    err.status = res.status;
    throw err;
  }
  return data;
}

function errorText(data) {
  if (!data) return "";
  if (typeof data === "string") return data;
  if (typeof data.message === "string") return data.message;
  if (typeof data.detail === "string") return data.detail;
  if (Array.isArray(data.detail)) {
    return data.detail.map((d) => (d && d.msg) ? `${(d.loc || []).join(".")}: ${d.msg}` : String(d))
      .join("; ");
  }
  if (data.detail && typeof data.detail.message === "string") return data.detail.message;
  return JSON.stringify(data);
}

/** h("div", {class: "x", onclick: fn}, "text", child) - text children become text nodes. */
export function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") e.addEventListener(k.slice(2), v);
    else if (k === "class") e.className = v;
    else if (k === "dataset") Object.assign(e.dataset, v);
    else if (v === true) e.setAttribute(k, "");
    else e.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

export function gameFamily(game) {
  const g = String(game || "");
  if (g.startsWith("sheng-ji")) return "sheng-ji";
  if (g.startsWith("zheng-fen")) return "zheng-fen";
  return "zheng-shangyou";
}

export function ordinal(n) {
  const s = ["th", "st", "nd", "rd"], v = n % 100;
  return n + (s[(v - 20) % 10] || s[v] || s[0]);
}

export function seatName(ctx, seat) {
  if (seat === null || seat === undefined) return "?";
  const n = ctx.names && ctx.names[seat];
  return n ? String(n) : `Seat ${seat + 1}`;
}

function nameList(ctx, seats) {
  return (seats || []).map((s) => seatName(ctx, s)).join(", ");
}

function signed(x) {
  return x > 0 ? `+${x}` : String(x);
}

// ----------------------------------------------------------------------------- seats
/**
 * One box per seat: name, who is to act, cards left, place, score, game facts.
 * ctx: {names, mySeat, seats (table seats or null)}.
 */
export function renderSeats(view, ctx) {
  const fam = gameFamily(view.game);
  const wrap = h("div", { class: "seats", id: "seat-boxes" });
  const n = view.players;
  const finished = view.finished || [];
  for (let s = 0; s < n; s++) {
    const info = ctx.seats ? ctx.seats[s] : null;
    const box = h("div", {
      class: "seat-box" + (view.to_act === s ? " to-act" : "") + (ctx.mySeat === s ? " me" : ""),
      dataset: { seat: String(s) },
    });
    const title = h("div", { class: "seat-name" },
      h("span", { class: "name" }, seatName(ctx, s)),
      ctx.mySeat === s ? h("span", { class: "tag you" }, ctx.replay ? "point of view" : "you") : null,
      info && info.kind === "bot" ? h("span", { class: "tag bot" }, "bot") : null,
      info && info.kind === "human" && info.connected === false
        ? h("span", { class: "tag away", title: "disconnected" }, "away") : null);
    box.append(title);
    const facts = h("div", { class: "seat-facts" });
    const count = (view.counts || [])[s];
    facts.append(h("span", { class: "count", title: "cards in hand" }, `${count ?? "?"} cards`));
    if (fam !== "sheng-ji") {
      const place = finished.indexOf(s);
      if (place >= 0) facts.append(h("span", { class: "place" }, `${ordinal(place + 1)} out`));
      if ((view.passed || []).includes(s)) facts.append(h("span", { class: "passed" }, "passed"));
      if (view.scores) facts.append(h("span", { class: "score" }, `score ${view.scores[s]}`));
      if (view.won_points) facts.append(h("span", { class: "won" }, `won ${view.won_points[s]} pts`));
      if (view.teams) {
        const t = view.teams.findIndex((team) => team.includes(s));
        if (t >= 0) facts.append(h("span", { class: "team" }, `team ${t + 1}`));
      }
      if (view.dealer === s) facts.append(h("span", { class: "dealer" }, "dealer"));
    } else {
      if (view.levels) facts.append(h("span", { class: "level" }, `level ${view.levels[s]}`));
      if (view.declarer === s) facts.append(h("span", { class: "declarer" }, "declarer"));
      else if ((view.friends || []).includes(s)) facts.append(h("span", { class: "friend" }, "friend"));
      else if (view.teams && view.declarer !== null && view.declarer !== undefined) {
        const team = view.teams.find((t) => t.includes(view.declarer));
        if (team && team.includes(s)) facts.append(h("span", { class: "friend" }, "declarer's side"));
      }
      if (view.points_won) facts.append(h("span", { class: "won" }, `${view.points_won[s]} pts`));
      if (view.bid && view.bid.seat === s && view.phase === "deal") {
        facts.append(h("span", { class: "bid" }, "bid ", richText(view.bid.cards)));
      }
    }
    box.append(facts);
    if (view.to_act === s && view.phase !== "over") box.append(h("div", { class: "turn-mark" }, "to play"));
    wrap.append(box);
  }
  return wrap;
}

// ----------------------------------------------------------------------------- trick
export function renderTrick(view, ctx) {
  const fam = gameFamily(view.game);
  const box = h("div", { class: "trick", id: "trick" });
  let plays = view.trick || [];
  let label = "Current trick";
  let winner = null;
  let old = false;
  if (!plays.length) {
    if (fam === "sheng-ji" && (view.tricks || []).length) {
      const last = view.tricks[view.tricks.length - 1];
      plays = last.plays; winner = last.winner; label = "Last trick"; old = true;
    } else if (fam !== "sheng-ji" && (view.played || []).length) {
      plays = view.played[view.played.length - 1]; label = "Last trick"; old = true;
    }
  }
  if (view.phase === "exchange" && view.exchange) {
    const ex = view.exchange;
    box.append(h("div", { class: "trick-label" }, "Exchange of cards"),
               h("p", { class: "exchange-text" }, exchangeText(view, ctx)));
    return box;
  }
  if (!plays.length) {
    box.append(h("div", { class: "trick-label" }, label),
               h("div", { class: "muted" }, view.phase === "play" ? "No cards on the table yet." : ""));
    return box;
  }
  if (old) box.classList.add("old");
  box.append(h("div", { class: "trick-label" }, label,
               winner !== null ? ` — won by ${seatName(ctx, winner)}` : ""));
  const list = h("ol", { class: "trick-plays" });
  plays.forEach(([s, text], i) => {
    const cls = (text === "pass" ? "pass" : "") + (i === plays.length - 1 && !old ? " latest" : "");
    list.append(h("li", { dataset: { seat: String(s) }, class: cls.trim() },
      h("span", { class: "who" }, seatName(ctx, s)),
      text === "pass" ? h("span", { class: "play-word" }, "passes") : playElement(text)));
  });
  box.append(list);
  if (fam === "zheng-fen" && typeof view.table_points === "number") {
    box.append(h("div", { class: "table-points" }, `Points on the table: ${view.table_points}`));
  }
  return box;
}

// ----------------------------------------------------------------------------- facts
export function renderInfo(view, ctx) {
  const fam = gameFamily(view.game);
  const dl = h("dl", { class: "info", id: "info" });
  const add = (k, v) => dl.append(h("div", { class: "fact" }, h("dt", {}, k), h("dd", {}, v)));
  add("Game", view.game);
  add("Hand", String(view.hand_number ?? "-"));
  if (fam === "sheng-ji") {
    add("Level", String(view.level ?? "-"));
    add("Trump", trumpElement(view.trump));
    add("Declarer", view.declarer === null || view.declarer === undefined
      ? "not yet decided" : seatName(ctx, view.declarer));
    if (view.bid) add("Bid", h("span", {}, seatName(ctx, view.bid.seat), ": ", richText(view.bid.cards)));
    add("Kitty", `${view.kitty_size} cards`);
    add("Opponents' points", String(view.opponents_points ?? 0));
    if ((view.calls || []).length) add("Calls", richText(view.calls.join(", ")));
    if ((view.friends || []).length || (view.calls || []).length) {
      add("Friends found", view.friends.length ? nameList(ctx, view.friends) : "none yet");
    }
    if (view.teams) add("Teams", view.teams.map((t) => nameList(ctx, t)).join(" vs "));
    if (view.buried && view.buried.length) add("Buried", richText(view.buried.join(" ")));
  } else {
    if (view.target !== null && view.target !== undefined) add("Target", String(view.target));
    if (view.teams && view.team_scores) {
      add("Team scores", view.teams.map((t, i) => `${nameList(ctx, t)}: ${view.team_scores[i]}`)
        .join(" · "));
    }
    if (fam === "zheng-fen") {
      add("Points on the table", String(view.table_points ?? 0));
      if (view.won_points) {
        add("Points won", view.won_points.map((p, s) => `${seatName(ctx, s)}: ${p}`).join(" · "));
      }
    }
    if (view.exchange) add("Exchange", exchangeText(view, ctx));
  }
  return dl;
}

export function exchangeText(view, ctx) {
  const ex = view.exchange;
  const frag = document.createDocumentFragment();
  if (!ex) return frag;
  let text;
  if (ex.kind === "pits") {
    const step = {
      show: `${nameList(ctx, ex.givers)} give${ex.givers.length > 1 ? "" : "s"} their highest card`,
      take: (ex.discards || []).length
        ? `${nameList(ctx, [...ex.givers].reverse())} take${ex.givers.length > 1 ? "" : "s"} a discarded card`
        : `${nameList(ctx, ex.takers)} take${ex.takers.length > 1 ? "" : "s"} a card`,
      discard: `${nameList(ctx, ex.takers)} discard${ex.takers.length > 1 ? "" : "s"} a card`,
    }[ex.step] || ex.step;
    text = step;
    if ((ex.shown || []).length) text += ` · shown: ${ex.shown.join(" ")}`;
    if ((ex.discards || []).length) text += ` · discarded: ${ex.discards.join(" ")}`;
  } else {
    const step = {
      give: `${seatName(ctx, ex.giver)} gives their highest card to ${seatName(ctx, ex.taker)}`,
      offer: `${seatName(ctx, ex.taker)} offers two cards`,
      take: `${seatName(ctx, ex.giver)} takes one of the two offered cards`,
    }[ex.step] || ex.step;
    text = step;
    if ((ex.offered || []).length) text += ` · offered: ${ex.offered.join(" ")}`;
  }
  frag.append(richText(text));
  return frag;
}

// ----------------------------------------------------------------------------- summary
/** The end-of-hand summary of history[-1] (or null when no hand is over yet). */
export function renderSummary(view, ctx) {
  const hist = view.history || [];
  if (!hist.length) return null;
  const last = hist[hist.length - 1];
  const box = h("section", { class: "summary", id: "summary", "aria-live": "polite" });
  box.append(h("h3", {}, `Hand ${last.hand} is over`));
  const ul = h("ul", {});
  if (gameFamily(view.game) === "sheng-ji") {
    ul.append(h("li", {}, `Declarer: ${seatName(ctx, last.declarer)} · trump `, trumpElement(last.trump)));
    ul.append(h("li", {}, `Declarers: ${nameList(ctx, last.declarers)} · opponents: ${nameList(ctx, last.opponents)}`));
    let pts = `Opponents won ${last.points} points`;
    if (last.kitty_bonus) pts += ` + kitty ${last.kitty_points} × ${last.kitty_multiplier} = ${last.kitty_bonus}`;
    if (last.penalty) pts += ` + penalties ${last.penalty}`;
    pts += ` → total ${last.total}`;
    ul.append(h("li", {}, pts));
    if (last.change) {
      const c = last.change;
      ul.append(h("li", {}, `${c.side === "declarers" ? "Declarers" : "Opponents"} go up ${c.levels} level${c.levels === 1 ? "" : "s"}` +
        (c.swap ? " and become the declarers" : "")));
    }
    if (last.levels) ul.append(h("li", {}, "Levels: " + last.levels.map((l, s) => `${seatName(ctx, s)}: ${l}`).join(" · ")));
    if (last.kitty) ul.append(h("li", {}, "Kitty: ", richText(last.kitty)));
    if ((last.friends || []).length) ul.append(h("li", {}, `Friends: ${nameList(ctx, last.friends)}`));
  } else {
    ul.append(h("li", {}, "Order: " + (last.order || []).map((s, i) => `${ordinal(i + 1)} ${seatName(ctx, s)}`).join(" · ")));
    ul.append(h("li", {}, "Points: " + (last.points || []).map((p, s) => `${seatName(ctx, s)}: ${signed(p)}`).join(" · ")));
    ul.append(h("li", {}, "Scores: " + (last.scores || []).map((p, s) => `${seatName(ctx, s)}: ${p}`).join(" · ")));
    if (last.team_points && view.teams) {
      ul.append(h("li", {}, "Team points: " + last.team_points.map((p, i) => `${nameList(ctx, view.teams[i])}: ${signed(p)}`).join(" · ")));
    }
    if (last.team_scores && view.teams) {
      ul.append(h("li", {}, "Team scores: " + last.team_scores.map((p, i) => `${nameList(ctx, view.teams[i])}: ${p}`).join(" · ")));
    }
  }
  box.append(ul);
  return box;
}

// ----------------------------------------------------------------------------- result
export function renderResult(view, ctx) {
  const r = view.result;
  if (!r) return null;
  const box = h("section", { class: "result", id: "result", role: "status" });
  const winners = r.match_winners || r.winners || (r.winner !== undefined && r.winner !== null ? [r.winner] : []);
  const mine = !ctx.replay && ctx.mySeat !== null && ctx.mySeat !== undefined &&
    winners.includes(ctx.mySeat);
  box.append(h("h2", {}, `Match over after ${r.hands} hand${r.hands === 1 ? "" : "s"}`));
  let who;
  if (r.winning_team !== undefined && r.winning_team !== null) {
    who = `Winning team: ${nameList(ctx, r.winners)}`;
  } else if (winners.length === 1) {
    who = `Winner: ${seatName(ctx, winners[0])}`;
  } else if (winners.length) {
    who = `Winners: ${nameList(ctx, winners)}`;
  } else {
    who = "No winner";
  }
  box.append(h("p", { class: "winner" }, who, mine ? " — you won!" : ""));
  if (r.scores) box.append(h("p", {}, "Final scores: " + r.scores.map((p, s) => `${seatName(ctx, s)}: ${p}`).join(" · ")));
  if (r.team_scores && r.teams) {
    box.append(h("p", {}, "Team scores: " + r.team_scores.map((p, i) => `${nameList(ctx, r.teams[i])}: ${p}`).join(" · ")));
  }
  if (r.levels) box.append(h("p", {}, "Levels: " + r.levels.map((l, s) => `${seatName(ctx, s)}: ${l}`).join(" · ")));
  return box;
}

// ----------------------------------------------------------------------------- events
/** One line of text for an engine or server event (unknown events are shown generically). */
export function eventText(ev, ctx) {
  if (!ev || typeof ev !== "object") return String(ev);
  const who = ev.seat !== undefined && ev.seat !== null ? seatName(ctx, ev.seat) : "";
  switch (ev.event || ev.type) {
    case "play": return `${who} plays ${ev.cards ?? ev.move}`;
    case "move": return ev.move === "pass" ? `${who} passes` : `${who}: ${ev.move}`;
    case "pass": return `${who} passes`;
    case "bid": return `${who} bids ${ev.bid}`;
    case "trump": return `Trump is ${ev.trump}; declarer ${seatName(ctx, ev.declarer)}`;
    case "no bid": return `Nobody bid: trump is ${ev.trump}`;
    case "redeal": return "Nobody bid: the cards are dealt again";
    case "buried": return `${who} has buried the kitty`;
    case "kitty theft": return `${who} takes the kitty; trump is now ${ev.trump}`;
    case "call": return `${who} calls ${ev.call}`;
    case "friend": return `${who} is a friend (${ev.call})`;
    case "trick": return `${seatName(ctx, ev.winner)} wins the trick (${ev.points} points)`;
    case "failed throw": return `${who}'s throw ${ev.tried} fails: plays ${ev.forced}`;
    case "hook": return `Hooked! The declarers go back to ${ev.back_to}`;
    case "drawn card": return `Drawn card ${ev.card}: its holder leads`;
    case "show": return `${who} gives ${ev.card}`;
    case "give": return `${who} gives ${ev.card ?? "a card"}`;
    case "receive": return `${who} receives ${ev.card ?? "a card"}`;
    case "discard": return `${who} discards ${ev.card}`;
    case "offer": return `${who} offers ${ev.cards}`;
    case "hand over": return `Hand ${ev.hand} is over`;
    default: {
      const parts = Object.entries(ev).filter(([k]) => k !== "event" && k !== "type")
        .map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : v}`);
      return `${ev.event || ev.type || "event"}${who ? " " + who : ""} ${parts.join(" ")}`.trim();
    }
  }
}

/** The player's hand as display cards (for the replay page and spectators of open hands). */
export function handRow(cards) {
  const row = h("div", { class: "hand-row" });
  for (const c of cards || []) row.append(cardElement(c, { small: true }));
  return row;
}
