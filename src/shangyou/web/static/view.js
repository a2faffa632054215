// The drawing of a game view (seats, trick, game facts, end-of-hand summary, match result,
// events in words), shared by the table, replay, analysis, puzzles and learn pages.
// Every string that comes from the server or another player goes into the page as text.

import { cardElement, parseCard, playElement, richText, trumpElement } from "./cards.js";
import { gameFamily, gameTitle, h } from "./common.js";
import { lang, t } from "./i18n.js";

export function ordinal(n) {
  return n <= 3 ? t(`ord.${n}`) : t("ord.n", { n });
}

export function seatName(ctx, seat) {
  if (seat === null || seat === undefined) return "?";
  const n = ctx.names && ctx.names[seat];
  return n ? String(n) : t("t.seatN", { n: seat + 1 });
}

function nameList(ctx, seats) {
  return (seats || []).map((s) => seatName(ctx, s)).join(lang() === "zh" ? "、" : ", ");
}

function signed(x) {
  return x > 0 ? `+${x}` : String(x);
}

const SEP = " · ";

// ----------------------------------------------------------------------------- seats
/**
 * What a seat box says of the seat's game: out and its place, passed, score, points, team and
 * dealer (climbing games); level, declarer, friend or declarer's side and points won (Sheng ji).
 * Shared by the table's seats and the replay's.
 */
export function seatFacts(view, s) {
  const out = [];
  if (gameFamily(view.game) !== "sheng-ji") {
    const place = (view.finished || []).indexOf(s);
    if (place >= 0) out.push(h("span", { class: "place" }, t("c.out", { ord: ordinal(place + 1) })));
    if ((view.passed || []).includes(s)) out.push(h("span", { class: "passed" }, t("c.passed")));
    if (view.scores) out.push(h("span", { class: "score" }, t("c.score", { n: view.scores[s] })));
    if (view.won_points) out.push(h("span", { class: "won" }, t("c.won", { n: view.won_points[s] })));
    if (view.teams) {
      const tm = view.teams.findIndex((team) => team.includes(s));
      if (tm >= 0) out.push(h("span", { class: "team" }, t("c.team", { n: tm + 1 })));
    }
    if (view.dealer === s) out.push(h("span", { class: "dealer" }, t("c.dealer")));
    return out;
  }
  if (view.levels) out.push(h("span", { class: "level" }, t("c.level", { n: view.levels[s] })));
  if (view.declarer === s) out.push(h("span", { class: "declarer" }, t("c.declarer")));
  else if ((view.friends || []).includes(s)) out.push(h("span", { class: "friend" }, t("c.friend")));
  else if (view.teams && view.declarer !== null && view.declarer !== undefined) {
    const team = view.teams.find((tm) => tm.includes(view.declarer));
    if (team && team.includes(s)) out.push(h("span", { class: "friend" }, t("c.declSide")));
  }
  if (view.points_won && view.points_won[s]) {
    out.push(h("span", { class: "won" }, t("c.pts", { n: view.points_won[s] })));
  }
  return out;
}

/**
 * One box per seat: name, who is to act, cards left, place, score, game facts.
 * ctx: {names, mySeat, seats (table seats or null), host (the host's seat or null)}.
 */
export function renderSeats(view, ctx) {
  const fam = gameFamily(view.game);
  const wrap = h("div", { class: "seats", id: "seat-boxes" });
  const n = view.players;
  const active = view.phase !== "over" && !view.result ? view.to_act : null;
  for (let s = 0; s < n; s++) {
    const info = ctx.seats ? ctx.seats[s] : null;
    const isActive = active === s;
    const box = h("div", {
      class: "seat-box" + (isActive ? " to-act" : "") + (ctx.mySeat === s ? " me" : ""),
      dataset: { seat: String(s) },
      "aria-current": isActive ? "true" : undefined,
    });
    const title = h("div", { class: "seat-name" },
      h("span", { class: "name" }, seatName(ctx, s)),
      ctx.mySeat === s ? h("span", { class: "tag you" }, ctx.replay ? t("c.pov") : t("t.you")) : null,
      info && info.kind === "bot" ? h("span", { class: "tag bot" }, t("c.bot")) : null,
      ctx.host === s && info && info.kind === "human" ? h("span", { class: "tag host" }, t("t.hostTag")) : null,
      info && info.kind === "human" && info.connected === false
        ? h("span", { class: "tag away", title: t("c.disconnected") }, t("c.away")) : null,
      info && info.kind === "human" && info.autoplay
        ? h("span", { class: "tag autoplay", title: t("t.botPlayingTitle") }, t("t.botPlaying")) : null);
    box.append(title);
    const facts = h("div", { class: "seat-facts" });
    const count = (view.counts || [])[s];
    facts.append(h("span", { class: "count", title: t("c.cardsInHand") }, t("c.nCards", { n: count ?? "?" })));
    facts.append(...seatFacts(view, s));
    if (fam === "sheng-ji") {
      if (view.bid && view.bid.seat === s && view.phase === "deal") {
        facts.append(h("span", { class: "bid" }, t("c.bid"), richText(view.bid.cards)));
      }
    }
    box.append(facts);
    if (isActive) box.append(h("div", { class: "turn-mark" }, t("c.toPlay")));
    wrap.append(box);
  }
  return wrap;
}

// ----------------------------------------------------------------------------- trick
/** The last finished trick: {plays, winner} (or null). */
export function lastTrick(view) {
  if (gameFamily(view.game) === "sheng-ji") {
    const tr = view.tricks || [];
    return tr.length ? { plays: tr[tr.length - 1].plays, winner: tr[tr.length - 1].winner } : null;
  }
  const played = view.played || [];
  if (!played.length) return null;
  const plays = played[played.length - 1];
  let winner = null;
  for (const [s, text] of plays) if (text !== "pass") winner = s;
  return { plays, winner };
}

export function trickList(plays, ctx, { old = false } = {}) {
  const list = h("ol", { class: "trick-plays" });
  plays.forEach(([s, text], i) => {
    const cls = (text === "pass" ? "pass" : "") + (i === plays.length - 1 && !old ? " latest" : "");
    list.append(h("li", { dataset: { seat: String(s) }, class: cls.trim() },
      h("span", { class: "who" }, seatName(ctx, s)),
      text === "pass" ? h("span", { class: "play-word" }, t("c.passes")) : playElement(text)));
  });
  return list;
}

export function renderTrick(view, ctx) {
  const box = h("div", { class: "trick", id: "trick" });
  let plays = view.trick || [];
  let label = t("c.currentTrick");
  let winner = null;
  let old = false;
  if (!plays.length) {
    const last = lastTrick(view);
    if (last) {
      plays = last.plays; label = t("c.lastTrick"); old = true;
      if (gameFamily(view.game) === "sheng-ji") winner = last.winner;
    }
  }
  if (view.phase === "exchange" && view.exchange) {
    box.append(h("div", { class: "trick-label" }, t("c.exchange")),
               h("p", { class: "exchange-text" }, exchangeText(view, ctx)));
    return box;
  }
  if (!plays.length) {
    box.append(h("div", { class: "trick-label" }, label),
               h("div", { class: "trick-empty" }, view.phase === "play" ? t("c.noCards") : ""));
    return box;
  }
  if (old) box.classList.add("old");
  box.append(h("div", { class: "trick-label" }, label,
               winner !== null ? t("c.wonBy", { name: seatName(ctx, winner) }) : ""));
  box.append(trickList(plays, ctx, { old }));
  if (gameFamily(view.game) === "zheng-fen" && typeof view.table_points === "number") {
    box.append(h("div", { class: "table-points" }, t("c.tablePoints", { n: view.table_points })));
  }
  return box;
}

// ----------------------------------------------------------------------------- facts
export function renderInfo(view, ctx) {
  const fam = gameFamily(view.game);
  const dl = h("dl", { class: "info", id: "info" });
  const add = (k, v) => dl.append(h("div", { class: "fact" }, h("dt", {}, k), h("dd", {}, v)));
  add(t("f.game"), gameTitle(view.game));
  add(t("f.hand"), String(view.hand_number ?? "-"));
  if (fam === "sheng-ji") {
    add(t("f.level"), String(view.level ?? "-"));
    add(t("f.trump"), trumpElement(view.trump));
    add(t("f.declarer"), view.declarer === null || view.declarer === undefined
      ? t("f.undecided") : seatName(ctx, view.declarer));
    if (view.bid) add(t("f.bid"), h("span", {}, seatName(ctx, view.bid.seat), ": ", richText(view.bid.cards)));
    add(t("f.kitty"), t("f.kittyN", { n: view.kitty_size }));
    add(t("f.oppPoints"), String(view.opponents_points ?? 0));
    if ((view.calls || []).length) add(t("f.calls"), callsWords(view.calls));
    if ((view.friends || []).length || (view.calls || []).length) {
      add(t("f.friends"), view.friends.length ? nameList(ctx, view.friends) : t("f.noneYet"));
    }
    if (view.teams) add(t("f.teams"), view.teams.map((tm) => nameList(ctx, tm)).join(t("f.vs")));
    if (view.buried && view.buried.length) add(t("f.buried"), richText(view.buried.join(" ")));
  } else {
    if (view.target !== null && view.target !== undefined) add(t("f.target"), String(view.target));
    if (view.teams && view.team_scores) {
      add(t("f.teamScores"), view.teams.map((tm, i) => `${nameList(ctx, tm)}: ${view.team_scores[i]}`)
        .join(SEP));
    }
    if (fam === "zheng-fen") {
      add(t("f.tablePoints"), String(view.table_points ?? 0));
      if (view.won_points) {
        add(t("f.pointsWon"), view.won_points.map((p, s) => `${seatName(ctx, s)}: ${p}`).join(SEP));
      }
    }
    if (view.exchange) add(t("f.exchange"), exchangeText(view, ctx));
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
      show: () => t("x.pitsShow", { names: nameList(ctx, ex.givers) }),
      take: () => ((ex.discards || []).length
        ? t("x.pitsTakeDiscard", { names: nameList(ctx, [...ex.givers].reverse()) })
        : t("x.pitsTake", { names: nameList(ctx, ex.takers) })),
      discard: () => t("x.pitsDiscard", { names: nameList(ctx, ex.takers) }),
    }[ex.step];
    text = step ? step() : String(ex.step);
    if ((ex.shown || []).length) text += t("x.shown", { cards: ex.shown.join(" ") });
    if ((ex.discards || []).length) text += t("x.discarded", { cards: ex.discards.join(" ") });
  } else {
    const p = { giver: seatName(ctx, ex.giver), taker: seatName(ctx, ex.taker) };
    const key = { give: "x.give", offer: "x.offer", take: "x.take" }[ex.step];
    text = key ? t(key, p) : String(ex.step);
    if ((ex.offered || []).length) text += t("x.offered", { cards: ex.offered.join(" ") });
  }
  frag.append(richText(text));
  return frag;
}

// ----------------------------------------------------------------------------- summary
/** The score table of the last hand: rows of before / change / after that add up. */
function scoreTable(view, last, ctx) {
  const fam = gameFamily(view.game);
  const table = h("table", { class: "score-table", id: "score-table" });
  if (fam === "sheng-ji") {
    table.append(h("caption", {}, t("t.summaryTitle", { n: last.hand })));
    table.append(h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("t.col.what")),
                                         h("th", { scope: "col" }, t("t.col.points")))));
    const body = h("tbody", {});
    const row = (what, n, cls) => body.append(h("tr", { class: cls || "part", dataset: { value: String(n) } },
      h("th", { scope: "row" }, what), h("td", {}, String(n))));
    row(t("t.row.tricks"), last.points ?? 0);
    if (last.kitty_bonus) row(t("t.row.kitty", { p: last.kitty_points, m: last.kitty_multiplier }), last.kitty_bonus);
    if (last.penalty) row(t("t.row.penalty"), last.penalty);
    row(t("t.row.total"), last.total ?? 0, "total");
    table.append(body);
    return table;
  }
  const teams = !last.scores || (last.team_scores && (last.scores || []).every((x) => x === 0));
  const after = teams ? (last.team_scores || []) : (last.scores || []);
  const change = teams ? (last.team_points || []) : (last.points || []);
  if (!after.length) return null;
  table.append(h("caption", {}, t("t.summaryTitle", { n: last.hand })));
  table.append(h("thead", {}, h("tr", {},
    h("th", { scope: "col" }, teams ? t("t.col.team") : t("t.col.player")),
    h("th", { scope: "col" }, t("t.col.before")), h("th", { scope: "col" }, t("t.col.change")),
    h("th", { scope: "col" }, t("t.col.after")))));
  const body = h("tbody", {});
  after.forEach((a, i) => {
    const c = change[i] ?? 0;
    const who = teams ? nameList(ctx, (view.teams || [])[i] || []) : seatName(ctx, i);
    body.append(h("tr", { dataset: { before: String(a - c), change: String(c), after: String(a) } },
      h("th", { scope: "row" }, who), h("td", {}, String(a - c)), h("td", {}, signed(c)),
      h("td", {}, String(a))));
  });
  table.append(body);
  return table;
}

/** The end-of-hand summary of history[-1] (or null when no hand is over yet). */
export function renderSummary(view, ctx) {
  const hist = view.history || [];
  if (!hist.length) return null;
  const last = hist[hist.length - 1];
  const box = h("section", { class: "summary", id: "summary" });
  box.append(h("h3", {}, t("s.handOver", { n: last.hand })));
  const ul = h("ul", {});
  if (gameFamily(view.game) === "sheng-ji") {
    ul.append(h("li", {}, t("s.declarerTrump", { name: seatName(ctx, last.declarer) }), trumpElement(last.trump)));
    ul.append(h("li", {}, t("s.sides", { a: nameList(ctx, last.declarers), b: nameList(ctx, last.opponents) })));
    let pts = t("s.oppWon", { n: last.points });
    if (last.kitty_bonus) pts += t("s.kitty", { p: last.kitty_points, m: last.kitty_multiplier, b: last.kitty_bonus });
    if (last.penalty) pts += t("s.penalty", { n: last.penalty });
    pts += t("s.total", { n: last.total });
    ul.append(h("li", {}, pts));
    if (last.change) {
      const c = last.change;
      ul.append(h("li", {}, t(c.side === "declarers" ? "s.declUp" : "s.oppUp", { n: c.levels }) +
        (c.swap ? t("s.swap") : "")));
    }
    if (last.levels) ul.append(h("li", {}, t("s.levels") + last.levels.map((l, s) => `${seatName(ctx, s)}: ${l}`).join(SEP)));
    if (last.kitty) ul.append(h("li", {}, t("s.kittyCards"), richText(last.kitty)));
    if ((last.friends || []).length) ul.append(h("li", {}, t("s.friends", { names: nameList(ctx, last.friends) })));
  } else {
    ul.append(h("li", {}, t("s.order") + (last.order || []).map((s, i) => `${ordinal(i + 1)} ${seatName(ctx, s)}`).join(SEP)));
  }
  box.append(ul);
  const table = scoreTable(view, last, ctx);
  if (table) box.append(table);
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
  box.append(h("h2", {}, t("r.over", { n: r.hands })));
  let who;
  if (r.winning_team !== undefined && r.winning_team !== null) {
    who = t("r.winningTeam", { names: nameList(ctx, r.winners) });
  } else if (winners.length === 1) {
    who = t("r.winner", { name: seatName(ctx, winners[0]) });
  } else if (winners.length) {
    who = t("r.winners", { names: nameList(ctx, winners) });
  } else {
    who = t("r.noWinner");
  }
  box.append(h("p", { class: "winner" }, who, mine ? t("r.youWon") : ""));
  if (r.scores) box.append(h("p", {}, t("r.final") + r.scores.map((p, s) => `${seatName(ctx, s)}: ${p}`).join(SEP)));
  if (r.team_scores && r.teams) {
    box.append(h("p", {}, t("r.teamScores") + r.team_scores.map((p, i) => `${nameList(ctx, r.teams[i])}: ${p}`).join(SEP)));
  }
  if (r.levels) box.append(h("p", {}, t("r.levels") + r.levels.map((l, s) => `${seatName(ctx, s)}: ${l}`).join(SEP)));
  return box;
}

// ----------------------------------------------------------------------------- events
/** A friend call ("2 AH") in words: "the 2nd A♥", 「第二张红桃A」 (anything else as it came). */
export function callWords(call) {
  const m = /^(\d+) (\S+)$/.exec(String(call ?? "").trim());
  if (!m) return String(call ?? "");
  const n = Number(m[1]);
  const c = parseCard(m[2]);
  if (!c.suit) return String(call);
  const ord = n <= 3 ? t(`cw.${n}`) : t("cw.n", { n });
  return t("cw.one", { ord, rank: c.rank, suit: t(`cw.${c.suit}`) });
}

/** Several calls in words: "the 2nd A♥ and the 1st A♠". */
export function callsWords(calls) {
  const w = (calls || []).map(callWords);
  return w.length <= 1 ? w.join("") : w.slice(0, -1).join(t("cw.comma")) + t("cw.and") + w[w.length - 1];
}

/** One line of text for an engine or server event (unknown events are shown generically). */
export function eventText(ev, ctx) {
  if (!ev || typeof ev !== "object") return String(ev);
  const who = ev.seat !== undefined && ev.seat !== null ? seatName(ctx, ev.seat) : "";
  const card = ev.card ?? t("e.aCard");
  switch (ev.event || ev.type) {
    case "play": return t("e.play", { who, cards: ev.cards ?? ev.move });
    case "move": return ev.move === "pass" ? t("e.pass", { who }) : t("e.move", { who, move: ev.move });
    case "pass": return t("e.pass", { who });
    case "bid": return t("e.bid", { who, bid: ev.bid });
    case "trump": return t("e.trump", { trump: ev.trump, name: seatName(ctx, ev.declarer) });
    case "no bid": return t("e.noBid", { trump: ev.trump });
    case "redeal": return t("e.redeal");
    case "buried": return t("e.buried", { who });
    case "kitty theft": return t("e.theft", { who, trump: ev.trump });
    case "call": return t("e.call", { who, call: callWords(ev.call) });
    case "friend": return t("e.friend", { who, call: callWords(ev.call) });
    case "trick": return t("e.trick", { name: seatName(ctx, ev.winner), n: ev.points });
    case "failed throw": return t("e.failedThrow", { who, tried: ev.tried, forced: ev.forced });
    case "hook": return t("e.hook", { rank: ev.back_to });
    case "drawn card": return t("e.drawn", { card: ev.card });
    case "show": return t("e.show", { who, card: ev.card });
    case "give": return t("e.give", { who, card });
    case "receive": return t("e.receive", { who, card });
    case "discard": return t("e.discard", { who, card: ev.card });
    case "offer": return t("e.offer", { who, cards: ev.cards });
    case "hand over": return t("e.handOver", { n: ev.hand });
    default: {
      const parts = Object.entries(ev).filter(([k]) => k !== "event" && k !== "type")
        .map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : v}`);
      return `${ev.event || ev.type || t("e.event")}${who ? " " + who : ""} ${parts.join(" ")}`.trim();
    }
  }
}

/** The player's hand as display cards (for the replay page and spectators of open hands). */
export function handRow(cards) {
  const row = h("div", { class: "hand-row" });
  for (const c of cards || []) row.append(cardElement(c, { small: true }));
  return row;
}
