// Fair deals. When a match starts the server publishes a commitment: the SHA-256 hash of the
// secret that shuffles every deal of the match. The secret itself is published when the match
// is over. The table page keeps the commitment it was shown and the cards this browser was
// dealt (localStorage, shangyou.commit.<match_id>); the replay page recomputes the hash of the
// published secret, compares it with what this browser kept, compares the kept cards with the
// log's deals, and shows the server's own check (GET /api/matches/{id}/verify).
// Every state also carries the running hash of the moves so far (moves_hash, after move_count
// moves, keyed with the secret); the table page keeps the last one it saw with the record, and
// the replay page checks that the log's moves hash to it, and to the log's own moves_hash.

import { api, gameFamily, h } from "./common.js";
import { t } from "./i18n.js";
import { sha256, toHex } from "./sha256.js";

// The text hashed: this label and the secret's 64 lowercase hex digits (ASCII, so UTF-8 is the
// same bytes). It must stay the engine's commitment (src/shangyou/engine/deal.py); this is the
// one place the pages write it.
export const COMMIT_PREFIX = "shangyou/commitment/v1:";
const KEY_PREFIX = "shangyou.commit.";
const KEEP_MATCHES = 40;       // the kept records of the most recent matches
const KEEP_HANDS = 60;         // hands kept per match
const HEX64 = /^[0-9a-f]{64}$/i;

export function isHex64(x) {
  return typeof x === "string" && HEX64.test(x);
}

/** The SHA-256 of a text's UTF-8 bytes, as 64 hex digits (crypto.subtle where the page has
 * it: a secure context; otherwise the small implementation in sha256.js). */
export async function sha256Hex(text) {
  const bytes = new TextEncoder().encode(String(text));
  const subtle = globalThis.crypto && globalThis.crypto.subtle;
  if (subtle && typeof subtle.digest === "function") {
    try {
      return toHex(new Uint8Array(await subtle.digest("SHA-256", bytes)));
    } catch { /* fall through to the plain implementation */ }
  }
  return toHex(sha256(bytes));
}

/** The commitment of a deal secret (64 hex digits). */
export function commitmentOf(secretHex) {
  return sha256Hex(COMMIT_PREFIX + String(secretHex));
}

// The moves' running hash, as src/shangyou/fairness.py computes it (docs/fairness.md), keyed
// with the deal secret (published with the log): h_0 = HMAC-SHA256(secret, "shangyou/moves/v1:"
// + commitment), h_k = HMAC-SHA256(secret, "<h_{k-1}>:<seat>:<move>").
export const MOVES_PREFIX = "shangyou/moves/v1:";

/** HMAC-SHA256 (RFC 2104) of a text's UTF-8 bytes with a key of at most 64 bytes, as hex; the
 * plain SHA-256 of sha256.js, so that it works the same without crypto.subtle. */
export function hmacHex(key, text) {
  const block = new Uint8Array(64);
  block.set(key);
  const msg = new TextEncoder().encode(String(text));
  const inner = new Uint8Array(64 + msg.length);
  const outer = new Uint8Array(64 + 32);
  for (let i = 0; i < 64; i++) { inner[i] = block[i] ^ 0x36; outer[i] = block[i] ^ 0x5c; }
  inner.set(msg, 64);
  outer.set(sha256(inner), 64);
  return toHex(sha256(outer));
}

const hexBytes = (hex) => Uint8Array.from(hex.match(/../g) || [], (b) => parseInt(b, 16));

/** Every hash of the chain of `moves` ([[seat, text], ...]) of the match dealt from `secret`:
 * [h_0, h_1, ..., h_n]. */
export async function movesChain(secret, moves) {
  const ok = isHex64(String(secret));
  const key = ok ? hexBytes(String(secret).toLowerCase()) : new Uint8Array(0);
  const out = [hmacHex(key, MOVES_PREFIX + (ok ? await commitmentOf(String(secret).toLowerCase()) : ""))];
  for (const [seat, text] of moves || []) {
    out.push(hmacHex(key, `${out[out.length - 1]}:${Number(seat)}:${String(text)}`));
  }
  return out;
}

// ---------------------------------------------------------------------- the kept record
export function loadDeal(matchId) {
  if (!matchId) return null;
  try {
    const rec = JSON.parse(localStorage.getItem(KEY_PREFIX + matchId) || "null");
    return rec && typeof rec === "object" && isHex64(rec.commitment) ? rec : null;
  } catch {
    return null;
  }
}

function saveDeal(matchId, rec) {
  try {
    localStorage.setItem(KEY_PREFIX + matchId, JSON.stringify(rec));
  } catch { /* storage full or private mode: nothing kept */ }
  prune();
}

/** Forget all but the most recent matches. */
function prune() {
  const recs = [];
  for (let i = 0; i < localStorage.length; i++) {
    const k = localStorage.key(i);
    if (!k || !k.startsWith(KEY_PREFIX)) continue;
    let at = 0;
    try { at = Number(JSON.parse(localStorage.getItem(k)).at) || 0; } catch { at = 0; }
    recs.push([at, k]);
  }
  if (recs.length <= KEEP_MATCHES) return;
  recs.sort((a, b) => a[0] - b[0]);
  for (const [, k] of recs.slice(0, recs.length - KEEP_MATCHES)) localStorage.removeItem(k);
}

/**
 * Is this view the hand as it was dealt (no card has moved since)? Climbing games: nothing
 * played and no card exchanged yet. Sheng ji: the cards are drawn one by one during the deal
 * phase, so only that phase counts (the kitty joins the declarer's hand after it).
 */
function asDealt(view) {
  if (gameFamily(view.game) === "sheng-ji") return view.phase === "deal";
  const ex = view.exchange;
  const moved = ex && ((ex.shown || []).length || (ex.discards || []).length ||
                       (ex.offered || []).length);
  return !(view.played || []).length && !(view.trick || []).length &&
    !(view.exchanged || []).length && !moved && view.phase !== "over";
}

/**
 * Called with every state of the table page: keep the match's commitment the first time it is
 * seen, and this seat's cards as dealt in each hand (Sheng ji: the most cards seen during the
 * deal, since they are drawn one at a time). Never replaces a kept commitment: if the server
 * showed another one later, the replay page shows the difference.
 */
export function noteDeal(table, view, seat, msg) {
  if (!table || !table.match_id || !isHex64(table.commitment)) return;
  const m = table.match_id;
  let rec = loadDeal(m);
  let changed = false;
  if (!rec) {
    rec = { commitment: table.commitment.toLowerCase(), table: table.table_id || null,
            game: table.game || null, seat: null, hands: {}, at: Date.now() };
    changed = true;
  }
  // the last moves hash seen: {n: moves made, hash}; a later state never goes back
  if (msg && isHex64(msg.moves_hash) && Number.isInteger(msg.move_count) &&
      (!rec.moves || msg.move_count > rec.moves.n)) {
    rec.moves = { n: msg.move_count, hash: msg.moves_hash.toLowerCase() };
    changed = true;
  }
  if (view && Array.isArray(view.hand) && view.hand.length && seat !== null && seat !== undefined &&
      Number.isInteger(view.hand_number) && asDealt(view)) {
    if (rec.seat === null || rec.seat === undefined) { rec.seat = seat; changed = true; }
    const n = String(view.hand_number);
    const kept = rec.hands[n];
    const grow = gameFamily(view.game) === "sheng-ji" && kept && view.hand.length > kept.length;
    if (rec.seat === seat && (!kept || grow) && (kept || Object.keys(rec.hands).length < KEEP_HANDS)) {
      rec.hands[n] = view.hand.map(String);
      changed = true;
    }
  }
  if (changed) saveDeal(m, rec);
}

/** The "Deal sealed" line of the table page's info area (null before a match with one). */
export function sealLine(table) {
  if (!table || !isHex64(table.commitment)) return null;
  const p = h("p", { class: "seal muted", id: "deal-seal", dataset: { commitment: table.commitment } },
    t("fair.sealed"), " ", h("code", {}, `${table.commitment.slice(0, 12).toLowerCase()}…`));
  if (isHex64(table.secret) && table.match_id) {
    p.append(" ", h("a", { href: `/replay/${encodeURIComponent(table.match_id)}#fair`, id: "fair-link" },
      t("fair.checkIt")));
  }
  return p;
}

// ---------------------------------------------------------------------- the log's deals
const RANKS = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"];
const SUITS = ["D", "C", "H", "S"];

function cardText(c) {
  if (Number.isInteger(c)) {
    const k = ((c % 54) + 54) % 54;
    return k >= 52 ? (k === 52 ? "BJ" : "RJ") : RANKS[k >> 2] + SUITS[k & 3];
  }
  return String(c).trim().toUpperCase().replace(/^T(?=[SHDC]$)/, "10");
}

function seatCards(x) {
  if (typeof x === "string") return x.split(/[\s,]+/).filter(Boolean).map(cardText);
  if (Array.isArray(x)) return x.map(cardText);
  if (x && typeof x === "object") return seatCards(x.cards || x.hand || []);
  return null;
}

function dealHands(entry) {
  let e = entry;
  if (e && !Array.isArray(e) && typeof e === "object") e = e.hands || e.seats || e.deal || e.cards;
  return Array.isArray(e) ? e.map(seatCards) : null;
}

/** The log's deals ([{"hand", "hands": [cards of each seat], "undealt"}], one a shuffle) as a
 * Map: hand number (a string) -> the shuffles of that hand (two when a hand was dealt again),
 * each the cards of every seat. */
export function dealsByHand(log) {
  const out = new Map();
  const add = (n, e) => {
    const hands = dealHands(e);
    if (!hands) return;
    if (!out.has(n)) out.set(n, []);
    out.get(n).push(hands);
  };
  const d = log && log.deals;
  if (Array.isArray(d)) {
    d.forEach((e, i) => {
      const n = e && !Array.isArray(e) && typeof e === "object" && Number.isInteger(e.hand) ? e.hand : i + 1;
      add(String(n), e);
    });
  } else if (d && typeof d === "object") {
    for (const [k, e] of Object.entries(d)) add(String(k), e);
  }
  return out;
}

/** Is every card of `part` in `whole` (as many times)? */
function within(part, whole) {
  const left = new Map();
  for (const c of whole) left.set(c, (left.get(c) || 0) + 1);
  for (const c of part.map(cardText)) {
    const n = left.get(c) || 0;
    if (!n) return false;
    left.set(c, n - 1);
  }
  return true;
}

/** The kept cards against the log's deals: {status: "ok"|"bad"|"none", hands, bad: [n]}. */
export function compareHands(rec, log) {
  const hands = rec && rec.hands ? Object.entries(rec.hands) : [];
  if (!hands.length || rec.seat === null || rec.seat === undefined) return { status: "none", hands: 0, bad: [] };
  const deals = dealsByHand(log);
  if (!deals.size) return { status: "none", hands: 0, bad: [] };
  const bad = [];
  for (const [n, cards] of hands) {
    const shuffles = deals.get(n) || [];
    if (!shuffles.some((d) => d[rec.seat] && within(cards, d[rec.seat]))) bad.push(Number(n));
  }
  return { status: bad.length ? "bad" : "ok", hands: hands.length, bad };
}

// ---------------------------------------------------------------------- the replay panel
function check(id, status, ...text) {
  const mark = { ok: "✓", bad: "✗", none: "–", pending: "…" }[status] || "";
  return h("li", { class: `check ${status}`, dataset: { check: id, status } },
    h("span", { class: "mark", "aria-hidden": "true" }, mark), " ", ...text);
}

const short = (hex) => h("code", { class: "hex" }, `${hex.slice(0, 12)}…`);

/**
 * The "Fair deal" panel of a finished match (null when the log has no commitment and secret).
 * Fills `box` and returns a promise that resolves when every check has its answer.
 */
export async function fairPanel(box, matchId, log) {
  if (!log || !isHex64(log.commitment) || !isHex64(String(log.seed))) return false;
  const secret = String(log.seed);
  const published = log.commitment.toLowerCase();
  const list = h("ul", { class: "checks", id: "fair-checks" });
  const json = JSON.stringify(log, null, 1);
  const file = `shangyou-${matchId}.json`;
  if (box.dataset.url) URL.revokeObjectURL(box.dataset.url);     // the panel drawn before
  box.dataset.url = URL.createObjectURL(new Blob([json], { type: "application/json" }));
  const link = h("a", { id: "fair-download", download: file, href: box.dataset.url }, t("fair.download"));
  box.replaceChildren(
    h("h2", { id: "fair-title" }, t("fair.title")),
    h("p", {}, t("fair.intro")),
    list,
    h("dl", { class: "fair-values" },
      h("div", {}, h("dt", {}, t("fair.commitment")), h("dd", {}, h("code", { class: "hex" }, published))),
      h("div", {}, h("dt", {}, t("fair.secret")), h("dd", {}, h("code", { class: "hex" }, secret)))),
    h("p", {}, t("fair.yourself"), " ", link, " ", t("fair.thenRun"), " ",
      h("code", {}, `shangyou verify ${file}`)));
  box.hidden = false;

  // (a) the hash of the published secret
  const computed = await commitmentOf(secret);
  const hashOk = computed === published;
  list.append(check("commitment", hashOk ? "ok" : "bad",
    ...(hashOk ? [t("fair.hashOk")] : [t("fair.hashBad"), " ", short(computed)])));
  // (b) what this browser kept when the match started
  const rec = loadDeal(matchId);
  if (!rec) list.append(check("kept", "none", t("fair.keptNone")));
  else if (rec.commitment.toLowerCase() === published) list.append(check("kept", "ok", t("fair.keptOk")));
  else list.append(check("kept", "bad", t("fair.keptBad"), " ", short(rec.commitment)));
  // (c) the cards this browser was dealt
  const hands = compareHands(rec, log);
  if (hands.status === "ok") list.append(check("hands", "ok", t("fair.handsOk", { n: hands.hands })));
  else if (hands.status === "bad") list.append(check("hands", "bad", t("fair.handsBad", { list: hands.bad.join(", ") })));
  else list.append(check("hands", "none", t("fair.handsNone")));
  // (e) the moves: their chain ends at the log's moves_hash, and passes through the hash kept
  const moves = Array.isArray(log.moves) ? log.moves : [];
  const chain = await movesChain(secret, moves);
  const last = chain[chain.length - 1];
  if (!isHex64(log.moves_hash)) list.append(check("moves", "bad", t("fair.movesNoHash")));
  else if (log.moves_hash.toLowerCase() === last) list.append(check("moves", "ok", t("fair.movesOk", { n: moves.length })));
  else list.append(check("moves", "bad", t("fair.movesBad"), " ", short(last)));
  const seen = rec && rec.moves;
  if (!seen || !isHex64(seen.hash) || !Number.isInteger(seen.n)) list.append(check("seen", "none", t("fair.seenNone")));
  else if (chain[seen.n] === seen.hash) {
    // in full, as `shangyou verify --moves-hash K:HEX` takes it
    list.append(check("seen", "ok", t("fair.seenOk", { n: seen.n }), " ",
      h("code", { class: "hex", id: "fair-seen" }, `${seen.n}:${seen.hash}`)));
  }
  else list.append(check("seen", "bad", t("fair.seenBad", { n: seen.n }), " ", short(seen.hash)));
  // (d) the server's own check
  const server = check("server", "pending", t("fair.serverWait"));
  list.append(server);
  let v = null;
  try {
    v = await api(`/api/matches/${encodeURIComponent(matchId)}/verify`);
  } catch (ex) {
    server.replaceWith(check("server", "none", t("fair.serverNone", { msg: ex.message })));
    return true;
  }
  const ok = !!(v && v.ok);
  const parts = [
    t(v && v.commitment_ok ? "fair.sv.commitOk" : "fair.sv.commitBad"),
    t(v && v.replays ? "fair.sv.replaysOk" : "fair.sv.replaysBad"),
    t(v && v.deals_ok ? "fair.sv.dealsOk" : "fair.sv.dealsBad", { n: v && v.hands }),
    t(v && v.moves_ok ? "fair.sv.movesOk" : "fair.sv.movesBad"),
  ];
  const text = t(ok ? "fair.serverOk" : "fair.serverBad", { parts: parts.join(t("fair.sep")) }) +
    (v && v.reason ? ` (${v.reason})` : "");
  server.replaceWith(check("server", ok ? "ok" : "bad", text));
  return true;
}
