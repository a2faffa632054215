// The table page: one WebSocket to /ws/{table_id}; seats and start before the match, then the
// game for every preset (climbing games and Sheng ji). See docs/protocol.md.

import { cardElement, richText, sameCards, splitPlay } from "./cards.js";
import {
  eventText, gameFamily, h, renderInfo, renderResult, renderSeats, renderSummary, renderTrick,
  seatName,
} from "./common.js";

const tableId = decodeURIComponent(location.pathname.replace(/^\/t\//, "").split("/")[0] || "");
const TOKEN_KEY = `shangyou.token.${tableId}`;
const NAME_KEY = "shangyou.name";
const BOTS_KEY = "shangyou.bots";

const $ = (id) => document.getElementById(id);

const S = {
  ws: null,
  version: null,
  table: null,          // the table part of the last state/welcome
  view: null,           // the engine view for this client
  mySeat: null,
  selected: new Set(),  // indices into view.hand
  handKey: "",
  hintList: [],
  hintIndex: -1,
  hintMove: null,
  choices: null,        // several readings of the selected cards: the player picks one
  busy: false,          // a move was sent and no answer came yet
  retry: 0,
  historyLen: null,
  lastResultShown: false,
  alertTimer: null,
};

// ---------------------------------------------------------------------- connection
function wsUrl() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  return `${proto}//${location.host}/ws/${encodeURIComponent(tableId)}`;
}

function myName() {
  const v = ($("name").value || "").trim().slice(0, 24);
  return v || localStorage.getItem(NAME_KEY) || "";
}

function connect() {
  setConn(false, S.retry ? "reconnecting…" : "connecting…");
  let ws;
  try {
    ws = new WebSocket(wsUrl());
  } catch (e) {
    scheduleReconnect();
    return;
  }
  S.ws = ws;
  ws.addEventListener("open", () => {
    S.retry = 0;
    setConn(true, "connected");
    send({ type: "hello", token: localStorage.getItem(TOKEN_KEY) || null, name: myName() });
  });
  ws.addEventListener("message", (e) => {
    let msg;
    try { msg = JSON.parse(e.data); } catch { return; }
    handle(msg);
  });
  ws.addEventListener("close", () => {
    if (S.ws !== ws) return;
    S.ws = null;
    S.busy = false;
    scheduleReconnect();
  });
  ws.addEventListener("error", () => { /* the close event follows */ });
}

function scheduleReconnect() {
  if (S.stopped) { setConn(false, "disconnected"); return; }
  S.retry += 1;
  const delay = Math.min(8000, 500 * 2 ** Math.min(S.retry, 4));
  setConn(false, "reconnecting…");
  setTimeout(connect, delay);
}

function send(msg) {
  if (!S.ws || S.ws.readyState !== WebSocket.OPEN) {
    showAlert("Not connected: reconnecting…");
    return false;
  }
  S.ws.send(JSON.stringify(msg));
  return true;
}

function setConn(ok, text) {
  const c = $("conn");
  c.textContent = text;
  c.classList.toggle("down", !ok);
}

// ------------------------------------------------------------------------ messages
function handle(msg) {
  switch (msg.type) {
    case "welcome":
      onSeat(msg);
      if (msg.table) S.table = msg.table;
      if (S.table && S.table.bot_level && !localStorage.getItem(BOTS_KEY)) {
        $("bot-level").value = S.table.bot_level;
      }
      render();
      break;
    case "state":
      if (msg.token) localStorage.setItem(TOKEN_KEY, msg.token);
      if ("seat" in msg) S.mySeat = msg.seat ?? null;
      S.version = msg.version;
      if (msg.table) S.table = msg.table;
      S.view = msg.view || null;
      if (S.view && S.view.seat !== undefined) S.mySeat = S.view.seat;
      S.busy = false;
      logEvents(msg.last_events || []);
      render();
      break;
    case "chat":
      addChat(msg.from, msg.text);
      break;
    case "error":
      S.busy = false;
      showAlert(msg.message || msg.code || "error");
      if (msg.code === "no_table") {
        S.stopped = true;
        $("top-alert").textContent = "There is no such table. Go back to the lobby to create one.";
      }
      if (msg.code === "replaced") {
        // the same seat was opened in another window: do not fight over it
        S.stopped = true;
        const top = $("top-alert");
        top.replaceChildren("This seat is now open in another window. ",
          h("button", { type: "button", id: "reconnect", onclick: () => {
            S.stopped = false; S.retry = 0; top.textContent = ""; connect();
          } }, "Play here instead"));
      }
      renderControls();
      break;
    default:
      if ("token" in msg && "seat" in msg) { onSeat(msg); render(); }
  }
}

function onSeat(msg) {
  if (msg.token) localStorage.setItem(TOKEN_KEY, msg.token);
  if ("seat" in msg) {
    S.mySeat = msg.seat === undefined ? null : msg.seat;
    if (S.mySeat === null && !msg.token) localStorage.removeItem(TOKEN_KEY);
  }
}

function logEvents(events) {
  const log = $("log");
  for (const ev of events) {
    log.append(h("li", {}, eventText(ev, ctx())));
  }
  while (log.children.length > 60) log.firstChild.remove();
  log.scrollTop = log.scrollHeight;
}

function addChat(from, text) {
  const log = $("chat-log");
  const li = document.createElement("li");
  const f = document.createElement("span");
  f.className = "from";
  f.textContent = String(from ?? "?") + ":";
  const t = document.createElement("span");
  t.className = "text";
  t.textContent = String(text ?? "");
  li.append(f, t);
  log.append(li);
  while (log.children.length > 80) log.firstChild.remove();
  log.scrollTop = log.scrollHeight;
}

function showAlert(text) {
  const a = $("alert");
  a.textContent = String(text);
  const top = $("top-alert");
  if ($("game").hidden) top.textContent = String(text);
  clearTimeout(S.alertTimer);
  S.alertTimer = setTimeout(() => { a.textContent = ""; top.textContent = ""; }, 9000);
}

// ---------------------------------------------------------------------- context
function ctx() {
  const seats = S.table && S.table.seats ? S.table.seats : null;
  const names = seats ? seats.map((s) => (s.kind === "empty" ? null : s.name)) : [];
  return { names, seats, mySeat: S.mySeat };
}

function myTurn() {
  const v = S.view;
  return !!(v && S.mySeat !== null && S.mySeat !== undefined && v.to_act === S.mySeat &&
            Array.isArray(v.legal_moves) && v.legal_moves.length && v.phase !== "over");
}

function legal() {
  return myTurn() ? S.view.legal_moves : [];
}

function kindOf(move) {
  return splitPlay(move) ? "cards" : move.split(" ")[0].toLowerCase();
}

/** A kind of move made by clicking one card of the hand: "bury 3D", "give 2S", "pick 5C". */
function clickKind() {
  const moves = legal();
  if (!moves.length) return null;
  for (const k of ["give", "discard", "bury", "pick"]) {
    if (moves.some((m) => m.startsWith(k + " "))) return k;
  }
  if (S.view.pending && S.view.pending.length && moves.some((m) => m.startsWith("throw "))) {
    return "throw";
  }
  return null;
}

function cardPlays() {
  return legal().filter((m) => splitPlay(m));
}

function offers() {
  return legal().filter((m) => m.startsWith("offer "));
}

// ------------------------------------------------------------------------- render
function render() {
  const t = S.table;
  const v = S.view;
  // for tests and debugging: what this page last received
  document.body.dataset.version = String(S.version ?? "");
  document.body.dataset.seat = S.mySeat === null || S.mySeat === undefined ? "" : String(S.mySeat);
  document.body.dataset.status = (t && t.status) || "";
  if (t) {
    $("table-title").textContent = `${t.game || (v && v.game) || ""} · ${t.players || ""} players`;
    $("table-status").textContent = t.status || "";
    document.title = `Shangyou · ${t.game || "table"}`;
  }
  const waiting = !t || t.status === "waiting" || !v;
  renderWaiting(waiting);
  $("game").hidden = !v;
  $("info-panel").hidden = !v;
  renderRole();
  if (!v) return;

  const c = ctx();
  const handKey = `${v.hand_number}|${(v.hand || []).join(",")}|${v.phase}|${v.to_act}|${(v.pending || []).join(",")}`;
  if (handKey !== S.handKey) {
    S.handKey = handKey;
    const keepSel = S.selected.size && v.hand && S.lastHand && v.hand.join(",") === S.lastHand;
    if (!keepSel) S.selected.clear();
    S.hintIndex = -1;
    S.hintMove = null;
    S.choices = null;
    $("hint-text").textContent = "";
  }
  S.lastHand = (v.hand || []).join(",");

  $("seats-panel").replaceChildren(renderSeats(v, c));
  $("trick-panel").replaceChildren(renderTrick(v, c));
  $("info-panel").replaceChildren(h("h2", {}, "Game"), renderInfo(v, c));

  const hist = (v.history || []).length;
  const summary = renderSummary(v, c);
  if (S.historyLen !== null && hist > S.historyLen) S.freshHist = hist;
  const early = !((v.played || v.tricks || []).length);   // no trick of the new hand done yet
  if (summary && S.freshHist === hist && (early || v.result)) summary.classList.add("fresh");
  S.historyLen = hist;
  $("summary-slot").replaceChildren(...(summary ? [h("div", { class: "panel" }, summary)] : []));
  const result = renderResult(v, c);
  if (result && t && t.match_id && (t.status === "over" || v.phase === "over")) {
    result.append(h("p", { class: "row" },
      h("a", { class: "button", href: `/replay/${encodeURIComponent(t.match_id)}`, id: "replay-link" },
        "Watch the replay"),
      h("a", { class: "button", href: "/" }, "Back to the lobby")));
  }
  $("result-slot").replaceChildren(...(result ? [h("div", { class: "panel result-panel" }, result)] : []));
  const over = v.phase === "over" || !!v.result;
  $("controls").hidden = over;
  $("hand").hidden = over && !(v.hand || []).length;

  renderPrompt();
  renderMoves();
  renderHand();
  renderControls();
}

function renderRole() {
  const line = $("role-line");
  const t = S.table;
  if (S.mySeat !== null && S.mySeat !== undefined) {
    line.textContent = `You sit in seat ${S.mySeat + 1}. Share the link to invite friends; ` +
      "a reload brings you back to this seat.";
  } else if (t && t.status === "waiting") {
    line.textContent = "Take a free seat to play, or watch as a spectator.";
  } else {
    line.textContent = "You are watching this table as a spectator (hands are hidden).";
  }
}

function renderWaiting(show) {
  const t = S.table;
  $("waiting").hidden = !(show && t && t.status === "waiting");
  if (!t || !t.seats) return;
  const list = $("seat-list");
  const seated = S.mySeat !== null && S.mySeat !== undefined;
  list.replaceChildren(...t.seats.map((s) => {
    const label = s.kind === "empty" ? "empty" : `${s.name}${s.kind === "bot" ? " (bot)" : ""}` +
      (s.kind === "human" && s.connected === false ? " (away)" : "");
    const li = h("li", { dataset: { seat: String(s.seat) } },
      h("span", { class: "seat-label" }, `Seat ${s.seat + 1}: `, label,
        s.seat === S.mySeat ? " — you" : ""));
    if (s.kind === "empty") {
      li.append(h("button", { type: "button", class: "sit", dataset: { seat: String(s.seat) },
        onclick: () => sit(s.seat) }, seated ? "Move here" : "Sit here"));
    }
    if (s.seat === S.mySeat) {
      li.append(h("button", { type: "button", class: "leave", onclick: leave }, "Leave"));
    }
    return li;
  }));
  const full = t.seats.every((s) => s.kind !== "empty");
  // a spectator may set up only a table where nobody sits yet
  const mayAct = seated || !t.seats.some((s) => s.kind === "human");
  $("start").disabled = !full || !mayAct;
  $("fill-bots").disabled = full || !mayAct;
}

function renderPrompt() {
  const v = S.view;
  const p = $("prompt");
  p.replaceChildren();
  p.classList.toggle("my-turn", myTurn());
  const c = ctx();
  if (v.phase === "over" || v.result) {
    p.append("The match is over.");
    return;
  }
  if (S.mySeat === null || S.mySeat === undefined) {
    p.append(v.to_act !== null && v.to_act !== undefined ? `${seatName(c, v.to_act)} to play.` : "");
    return;
  }
  if (!myTurn()) {
    p.append(v.to_act !== null && v.to_act !== undefined
      ? `Waiting for ${seatName(c, v.to_act)}…` : "Waiting…");
    return;
  }
  p.append(h("span", { class: "turn-flag", id: "your-turn" }, "Your turn"));
  const moves = legal();
  const fam = gameFamily(v.game);
  let text = "";
  if (fam === "sheng-ji") {
    if (v.phase === "deal") text = "Bidding: bid to name the trump suit, or pass.";
    else if (v.phase === "bury") {
      if (moves.some((m) => m.startsWith("bury "))) {
        const left = (v.kitty_size || 0) - (v.buried || []).length;
        text = `Bury ${left} more card${left === 1 ? "" : "s"}: click a card to bury it.`;
      } else text = "You may overcall to take the kitty, or pass.";
    } else if (v.phase === "call") text = "Call a friend: the first player to play this card joins you.";
    else if (v.phase === "play") {
      if (moves.some((m) => m.startsWith("pick "))) text = "Choose the rest of your cards: click one card at a time.";
      else if ((v.pending || []).length) text = "Building a throw: click more cards of the same suit, or finish the throw.";
      else if (!(v.trick || []).length) text = "Your lead: select a single, pair or tractor (or several units to throw) and press Play.";
      else {
        const lead = v.trick[0][1].split(" ").length;
        text = `Follow: select ${lead} card${lead === 1 ? "" : "s"} and press Play.`;
      }
    }
  } else if (v.phase === "exchange") {
    const kind = clickKind();
    if (kind === "give") text = "Exchange: give your highest card — click it.";
    else if (kind === "discard") text = "Exchange: discard a card you do not want — click it.";
    else if (offers().length) text = "Exchange: select two cards to offer, then press Offer.";
    else if (moves.some((m) => m.startsWith("take "))) text = "Exchange: take one of these cards.";
  } else if (v.last) {
    const reading = v.last.reading && v.last.reading !== v.last.kind ? " " + v.last.reading : "";
    p.append(`Beat ${seatName(c, v.last.seat)}'s `, richText(v.last.cards),
             ` (${v.last.kind}${reading}) or pass.`);
    return;
  } else {
    text = "Your lead: select cards and press Play.";
  }
  p.append(text);
}

function moveLabel(m) {
  if (m === "play") return "Finish the throw";
  const frag = document.createDocumentFragment();
  frag.append(richText(m));
  return frag;
}

function renderMoves() {
  const box = $("moves");
  box.replaceChildren();
  if (!myTurn()) return;
  if (S.choices) {
    box.append(h("span", { class: "muted" }, "These cards can be read in several ways:"));
    for (const m of S.choices) {
      box.append(h("button", { type: "button", class: "move-btn", dataset: { move: m },
        onclick: () => sendMove(m) }, richText(m)));
    }
    return;
  }
  const moves = legal();
  const buttons = [];
  const calls = moves.filter((m) => m.startsWith("call "));
  for (const m of moves) {
    const k = kindOf(m);
    if (k === "bid" || k === "take" || m === "play" ||
        (k === "give" && moves.length <= 6) || (k === "call" && calls.length <= 12)) {
      buttons.push(m);
    }
  }
  for (const m of buttons) {
    box.append(h("button", { type: "button", class: "move-btn", dataset: { move: m },
      onclick: () => sendMove(m) }, moveLabel(m)));
  }
  if (calls.length > 12) {
    const sel = h("select", { id: "call-select", "aria-label": "card to call" },
      ...calls.map((m) => h("option", { value: m }, m.replace(/^call (\d+) /, (_, o) =>
        `${o === "1" ? "first" : o === "2" ? "second" : o === "3" ? "third" : o + "th"} `))));
    box.append(sel, h("button", { type: "button", class: "primary", id: "call-send",
      onclick: () => sendMove(sel.value) }, "Call"));
  }
}

function renderHand() {
  const v = S.view;
  const box = $("hand");
  box.replaceChildren();
  if (!Array.isArray(v.hand)) {
    box.append(h("p", { class: "muted" }, S.mySeat === null || S.mySeat === undefined
      ? "Spectating: the players' hands are hidden." : ""));
    return;
  }
  const ck = clickKind();
  const pending = [...(v.pending || [])];
  v.hand.forEach((card, i) => {
    const b = cardElement(card, { button: true });
    b.dataset.index = String(i);
    // cards already picked for a throw or a follow in progress are shown as selected
    const pi = pending.indexOf(card);
    const isPending = pi >= 0;
    if (isPending) pending.splice(pi, 1);
    const sel = S.selected.has(i) || isPending;
    b.classList.toggle("selected", sel);
    b.setAttribute("aria-pressed", String(sel));
    if (ck) b.classList.add("clickable");
    b.addEventListener("click", () => onCard(i));
    box.append(b);
  });
}

function renderControls() {
  const v = S.view;
  if (!v) return;
  const mine = myTurn() && !S.busy;
  const moves = legal();
  const ck = clickKind();
  const plays = cardPlays();
  const offs = offers();
  const play = $("play");
  play.textContent = offs.length ? "Offer" : "Play";
  play.disabled = !(mine && !ck && S.selected.size > 0 && (plays.length || offs.length ||
                    (gameFamily(v.game) === "sheng-ji" && v.phase === "play")));
  $("pass").disabled = !(mine && moves.includes("pass"));
  // there is no passing in Sheng ji's play phase
  $("pass").hidden = gameFamily(v.game) === "sheng-ji" && v.phase === "play";
  $("hint").disabled = !(mine && moves.length);
  $("clear").disabled = S.selected.size === 0 && !S.hintMove;
  for (const b of document.querySelectorAll("#moves button")) b.disabled = !mine;
  for (const b of document.querySelectorAll("#hand .card")) b.disabled = S.busy;
  document.body.classList.toggle("my-turn", mine);
}

// ------------------------------------------------------------------------ actions
function onCard(i) {
  const v = S.view;
  if (!v || !v.hand) return;
  const ck = clickKind();
  if (ck && myTurn()) {
    const want = `${ck} ${v.hand[i]}`.toUpperCase();
    const m = legal().find((x) => x.toUpperCase() === want);
    if (m) sendMove(m);
    else showAlert(`You cannot ${ck} ${v.hand[i]} now` + (ck === "give" ? ": give your highest card." : "."));
    return;
  }
  if (S.selected.has(i)) S.selected.delete(i); else S.selected.add(i);
  S.choices = null;
  if (S.hintMove) {
    const p = splitPlay(S.hintMove);
    if (!p || !sameCards(p.cards, selectedCards())) S.hintMove = null;
  }
  renderMoves();
  renderHand();
  renderControls();
}

function selectedCards() {
  const hand = (S.view && S.view.hand) || [];
  return [...S.selected].sort((a, b) => a - b).map((i) => hand[i]);
}

function sendMove(move) {
  if (S.busy || !myTurn()) return;
  if (send({ type: "move", move, version: S.version })) {
    S.busy = true;
    S.choices = null;
    renderControls();
    setTimeout(() => { if (S.busy) { S.busy = false; renderControls(); } }, 6000);
  }
}

function onPlay() {
  const sel = selectedCards();
  if (!sel.length) return;
  const offs = offers();
  if (offs.length) {
    if (sel.length !== 2) { showAlert("Select exactly two cards to offer."); return; }
    const m = offs.find((o) => sameCards(o.split(" ").slice(1), sel));
    if (m) sendMove(m); else sendMove(`offer ${sel.join(" ")}`);
    return;
  }
  if (S.hintMove) {
    const p = splitPlay(S.hintMove);
    if (p && sameCards(p.cards, sel)) { sendMove(S.hintMove); return; }
  }
  const matches = cardPlays().filter((m) => sameCards(splitPlay(m).cards, sel));
  if (matches.length === 1) { sendMove(matches[0]); return; }
  if (matches.length > 1) {
    S.choices = matches;
    renderMoves();
    renderControls();
    return;
  }
  // not among the listed moves (e.g. a Sheng ji throw): the server judges it
  sendMove(sel.join(" "));
}

function onHint() {
  const moves = legal();
  if (!moves.length) return;
  const plays = moves.filter((m) => splitPlay(m));
  const ck = clickKind();
  const words = moves.filter((m) => !splitPlay(m) && m !== "pass" &&
                                    (!m.startsWith("throw ") || ck === "throw"));
  const list = [...plays, ...words, ...(moves.includes("pass") ? ["pass"] : [])];
  S.hintList = list;
  S.hintIndex = (S.hintIndex + 1) % list.length;
  const m = list[S.hintIndex];
  S.hintMove = m;
  S.choices = null;
  S.selected.clear();
  const hand = S.view.hand || [];
  const p = splitPlay(m);
  let cards = p ? p.cards : [];
  if (!p && ck && m.startsWith(ck + " ")) cards = [m.split(" ")[1]];
  const isOffer = m.startsWith("offer ");
  if (isOffer) cards = m.split(" ").slice(1);
  const used = new Set();
  for (const c of cards) {
    const i = hand.findIndex((x, j) => !used.has(j) && x.toUpperCase() === c.toUpperCase());
    if (i >= 0) used.add(i);
  }
  if (p || isOffer) for (const i of used) S.selected.add(i);
  const ht = $("hint-text");
  ht.replaceChildren(`Hint ${S.hintIndex + 1}/${list.length}: `, richText(m === "pass" ? "pass" : m));
  ht.dataset.move = m;
  renderMoves();
  for (const b of document.querySelectorAll("#moves button")) {
    b.classList.toggle("hinted", b.dataset.move === m);
  }
  $("pass").classList.toggle("hinted", m === "pass");
  renderHand();
  if (!p && !isOffer) for (const i of used) $("hand").children[i]?.classList.add("hinted");
  renderControls();
}

function sit(seat) {
  const name = myName();
  localStorage.setItem(NAME_KEY, name);
  send({ type: "sit", seat, name });
}

function leave() {
  send({ type: "leave" });
  localStorage.removeItem(TOKEN_KEY);
  S.mySeat = null;
  render();
}

// --------------------------------------------------------------------------- setup
function init() {
  const link = `${location.origin}/t/${encodeURIComponent(tableId)}`;
  $("share-link").value = link;
  $("copy-link").addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(link);
      $("copy-link").textContent = "Copied";
    } catch {
      $("share-link").select();
    }
  });
  $("name").value = localStorage.getItem(NAME_KEY) || "";
  $("name").addEventListener("change", () => {
    const v = $("name").value.trim().slice(0, 24);
    if (v) localStorage.setItem(NAME_KEY, v);
  });
  const lvl = localStorage.getItem(BOTS_KEY);
  if (lvl) $("bot-level").value = lvl;
  $("bot-level").addEventListener("change", () => localStorage.setItem(BOTS_KEY, $("bot-level").value));
  $("fill-bots").addEventListener("click", () => send({ type: "bots", level: $("bot-level").value }));
  $("start").addEventListener("click", () => send({ type: "start" }));
  $("play").addEventListener("click", onPlay);
  $("pass").addEventListener("click", () => sendMove("pass"));
  $("hint").addEventListener("click", onHint);
  $("clear").addEventListener("click", () => {
    S.selected.clear(); S.hintMove = null; S.choices = null;
    $("hint-text").textContent = "";
    $("pass").classList.remove("hinted");
    renderMoves(); renderHand(); renderControls();
  });
  $("chat-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("chat-input").value.trim().slice(0, 200);
    if (!text) return;
    if (send({ type: "chat", text })) $("chat-input").value = "";
  });
  if (!tableId) {
    $("top-alert").textContent = "No table in the address.";
    return;
  }
  connect();
}

init();
