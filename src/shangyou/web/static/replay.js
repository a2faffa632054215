// The replay page: a finished match, step by step, from one seat's point of view or with every
// hand open. The log comes from GET /api/matches/{id}; the state after k moves from
// GET /api/matches/{id}/step/{k}?seat=S|all ({"k", "n", "view", "views"}): there is no engine
// in the browser. A match dealt from a published secret gets the "Fair deal" panel (fair.js).

import { richText } from "./cards.js";
import { api, gameTitle, h, localName } from "./common.js";
import { fairPanel } from "./fair.js";
import { mountReview, reviewNote } from "./review.js";
import { t, translatePage } from "./i18n.js";
import { mountSettings } from "./settings.js";
import {
  handRow, renderInfo, renderResult, renderSeats, renderSummary, renderTrick, seatName,
} from "./view.js";

const $ = (id) => document.getElementById(id);
const matchId = decodeURIComponent(location.pathname.replace(/^\/replay\//, "").split("/")[0] || "");

const R = {
  log: null, names: [], result: null, n: 0, k: 0, seat: "all",
  cache: new Map(), loading: 0, timer: null, fallback: false,
};

function ctx() {
  return { names: R.names, seats: null, mySeat: /^\d+$/.test(R.seat) ? Number(R.seat) : null,
           replay: true };
}

function readHash() {
  const p = new URLSearchParams(location.hash.slice(1));
  const k = Number(p.get("k"));
  if (Number.isInteger(k) && k >= 0) R.k = Math.min(k, R.n);
  const seat = p.get("seat");
  if (seat === "all" || seat === "public" || (seat !== null && /^\d+$/.test(seat) && Number(seat) < R.log.players)) {
    R.seat = seat;
  }
}

function writeHash() {
  history.replaceState(null, "", `#k=${R.k}&seat=${R.seat}`);
}

async function fetchStep(k, seat) {
  const key = `${k}|${seat}`;
  if (R.cache.has(key)) return R.cache.get(key);
  const data = await api(`/api/matches/${encodeURIComponent(matchId)}/step/${k}?seat=${encodeURIComponent(seat)}`);
  R.cache.set(key, data);
  return data;
}

async function show(k) {
  R.k = Math.max(0, Math.min(R.n, k));
  writeHash();
  updateStepper();
  const ticket = ++R.loading;
  let data;
  try {
    data = await fetchStep(R.k, R.seat);
  } catch (ex) {
    if (ticket !== R.loading) return;
    $("alert").textContent = t("rp.errStep", { k: R.k, msg: ex.message });
    if (ex.status === 404 || ex.status === 405) showFallback();
    return;
  }
  if (ticket !== R.loading) return;   // a later step was asked for meanwhile
  $("alert").textContent = "";
  render(data);
  // fetch the next step ahead of time so "next" feels instant
  if (R.k < R.n) fetchStep(R.k + 1, R.seat).catch(() => {});
}

function updateStepper() {
  $("step-text").textContent = t("rp.step", { k: R.k, n: R.n });
  $("slider").max = String(R.n);
  $("slider").value = String(R.k);
  $("first").disabled = $("prev").disabled = R.k <= 0;
  $("next").disabled = $("last").disabled = R.k >= R.n;
  // the position before the next move, as the seat that made it saw it (analysis.js)
  const next = R.k < R.n ? R.log.moves[R.k] : null;
  $("analyse").hidden = !next;
  if (next) {
    $("analyse").href = `/analysis?match=${encodeURIComponent(matchId)}&step=${R.k}&seat=${next[0]}`;
  }
  const lm = $("last-move");
  lm.replaceChildren();
  if (R.k > 0) {
    const [seat, text] = R.log.moves[R.k - 1];
    lm.append(t("rp.move", { k: R.k, name: seatName(ctx(), seat) }),
              text === "pass" ? t("rp.passes") : h("span", { class: "play" }, richText(text)));
    const by = (R.log.assisted || {})[String(R.k - 1)];    // a move made for an absent person
    if (by === "bot" || by === "timer") {
      lm.append(" ", h("span", { class: "assisted", dataset: { by } }, t(`rp.by.${by}`)));
    }
    const note = reviewNote(R.k - 1);      // the review's mark and better move, if any
    if (note) lm.append(note);
  } else {
    lm.append(t("rp.deal"));
  }
}

function render(data) {
  const views = Array.isArray(data.views) ? data.views : null;
  const base = data.view || (views && views[0]);
  if (!base) return;
  const c = ctx();
  $("seats-panel").replaceChildren(renderSeats(base, c));
  $("trick-panel").replaceChildren(renderTrick(base, c));
  $("info-panel").replaceChildren(h("h2", {}, t("f.game")), renderInfo(base, c));
  const hands = $("hands-panel");
  hands.replaceChildren();
  if (views) {
    hands.append(h("h2", {}, t("rp.allHands")));
    const list = h("div", { class: "open-hands" });
    views.forEach((v, s) => {
      list.append(h("div", { dataset: { seat: String(s) } },
        h("div", { class: "who" }, seatName(c, s), base.to_act === s ? t("rp.toPlay") : ""),
        (v.hand || []).length ? handRow(v.hand) : h("p", { class: "muted" }, t("rp.noCards"))));
    });
    hands.append(list);
  } else if (R.seat === "public") {
    hands.append(h("h2", {}, t("rp.hands")), h("p", { class: "muted" }, t("rp.noHand")));
  } else {
    hands.append(h("h2", {}, t("rp.hisHand", { name: seatName(c, Number(R.seat)) })),
                 (base.hand || []).length ? handRow(base.hand) : h("p", { class: "muted" }, t("rp.noCards")));
  }
  const summary = renderSummary(base, c);
  $("summary-slot").replaceChildren(...(summary ? [h("div", { class: "panel" }, summary)] : []));
  const result = renderResult(base, c);
  $("result-slot").replaceChildren(...(result ? [h("div", { class: "panel" }, result)] : []));
}

/** Without the step endpoint: at least list the moves of the log. */
function showFallback() {
  if (R.fallback) return;
  R.fallback = true;
  const ol = h("ol", { class: "log" });
  for (const [seat, text] of R.log.moves) ol.append(h("li", {}, `${seatName(ctx(), seat)}: `, richText(text)));
  $("hands-panel").replaceChildren(h("h2", {}, t("rp.moves")), ol);
}

function fillSeats() {
  if (!R.log) return;
  $("replay-title").textContent = "· " + t("rp.title", { game: gameTitle(R.log.game), n: R.log.players });
  document.title = `${t("app.name")} · ${t("page.replay")} · ${gameTitle(R.log.game)}`;
  const sel = $("seat");
  const keep = sel.value;
  sel.replaceChildren(h("option", { value: "all" }, t("rp.allOpen")),
                      h("option", { value: "public" }, t("rp.public")));
  for (let s = 0; s < R.log.players; s++) sel.append(h("option", { value: String(s) }, seatName(ctx(), s)));
  if (keep) sel.value = keep;
}

function stopAuto() {
  clearInterval(R.timer);
  R.timer = null;
  $("autoplay").textContent = t("rp.auto");
}

async function init() {
  translatePage();
  const wantFair = location.hash === "#fair";
  mountSettings($("top"), { onLang: () => { translatePage(); fillSeats(); show(R.k); showFair(); showReview(); } });
  if (!matchId) { $("alert").textContent = t("rp.noMatch"); return; }
  let data;
  try {
    data = await api(`/api/matches/${encodeURIComponent(matchId)}`);
  } catch (ex) {
    $("alert").textContent = ex.status === 404
      ? t("rp.notFound") : t("rp.errMatch", { msg: ex.message });
    return;
  }
  R.log = data.log;
  R.result = data.result;
  R.names = (data.names || []).map((x, i) => localName(x) || t("t.seatN", { n: i + 1 }));
  R.n = (R.log.moves || []).length;
  fillSeats();
  const sel = $("seat");
  readHash();
  sel.value = R.seat;
  sel.addEventListener("change", () => { R.seat = sel.value; show(R.k); });
  $("first").addEventListener("click", () => { stopAuto(); show(0); });
  $("prev").addEventListener("click", () => { stopAuto(); show(R.k - 1); });
  $("next").addEventListener("click", () => { stopAuto(); show(R.k + 1); });
  $("last").addEventListener("click", () => { stopAuto(); show(R.n); });
  $("slider").addEventListener("input", () => { stopAuto(); show(Number($("slider").value)); });
  $("autoplay").addEventListener("click", () => {
    if (R.timer) { stopAuto(); return; }
    $("autoplay").textContent = t("rp.stop");
    R.timer = setInterval(() => { if (R.k >= R.n) stopAuto(); else show(R.k + 1); }, 800);
  });
  document.addEventListener("keydown", (e) => {
    if (e.target && (e.target.tagName === "INPUT" || e.target.tagName === "SELECT")) return;
    if (e.key === "ArrowRight") show(R.k + 1);
    else if (e.key === "ArrowLeft") show(R.k - 1);
    else if (e.key === "Home") show(0);
    else if (e.key === "End") show(R.n);
  });
  show(R.k);
  showReview();
  await showFair();
  if (wantFair && !$("fair-panel").hidden) $("fair-panel").scrollIntoView();
}

function showReview() {
  if (!R.log) return;
  mountReview($("review-panel"), {
    matchId, players: R.log.players, seat: /^\d+$/.test(R.seat) ? Number(R.seat) : 0,
    seatName: (i) => seatName(ctx(), i), total: () => R.n, marks: $("review-marks"), slider: $("slider"),
    jump: (k) => { stopAuto(); show(k); }, changed: () => updateStepper(),
  });
}

let fairTicket = 0;

async function showFair() {
  if (!R.log) return;
  const box = $("fair-panel");
  const ticket = ++fairTicket;
  box.dataset.done = "";
  await fairPanel(box, matchId, R.log);
  if (ticket === fairTicket) box.dataset.done = "1";     // every check has its answer
}

init();
