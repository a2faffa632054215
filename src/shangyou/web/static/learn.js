// First lessons: a short course per game, each step a sentence or two and a small position to
// play. The server sends the step's texts and the learner's view of its position
// (GET /api/learn/{course}/{step}) and checks a play with the engine (POST .../check): an
// illegal play comes back with the judge's explanation, a legal one that is not what the step
// asks with the step's hint. The board is the table's own parts: the trick and the facts
// (view.js), the hand (table-hand.js). Progress is kept in this browser (localStorage).

import { api, gameFamily, h } from "./common.js";
import { lang, t, translatePage } from "./i18n.js";
import { mountSettings } from "./settings.js";
import { drawHand } from "./table-hand.js";
import { renderInfo, renderTrick } from "./view.js";

const $ = (id) => document.getElementById(id);
const DONE_KEY = "shangyou.learn.done";

const L = { courses: [], course: null, step: null, selected: new Set(), focus: 0, result: null, busy: false };

// ------------------------------------------------------------------------- progress
function doneSteps() {
  try {
    const v = JSON.parse(localStorage.getItem(DONE_KEY));
    return v && typeof v === "object" && !Array.isArray(v) ? v : {};
  } catch { return {}; }
}

function isDone(course, id) {
  const d = doneSteps()[course];
  return Array.isArray(d) && d.includes(id);
}

function markDone(course, id) {
  const all = doneSteps();
  const list = Array.isArray(all[course]) ? all[course].filter((x) => typeof x === "string") : [];
  if (!list.includes(id)) list.push(id);
  all[course] = list;
  try { localStorage.setItem(DONE_KEY, JSON.stringify(all)); } catch { /* private mode */ }
}

const local = (obj, key) => obj[`${key}_${lang() === "zh" ? "zh" : "en"}`] || obj[`${key}_en`] || "";

// --------------------------------------------------------------------------- choices
function course() { return L.courses.find((c) => c.name === L.course); }

function drawCourses() {
  $("learn-courses").replaceChildren(...L.courses.map((c) => {
    const b = h("button", { type: "button", class: "learn-course", dataset: { course: c.name },
      "aria-pressed": String(c.name === L.course) }, local(c, "title"));
    b.addEventListener("click", () => openStep(c.name, firstOpen(c)));
    return b;
  }));
  const c = course();
  if (!c) { $("learn-steps").replaceChildren(); return; }
  const n = c.steps.filter((s) => isDone(c.name, s.id)).length;
  $("learn-progress").textContent = t("learn.progress", { n, total: c.steps.length });
  $("learn-steps").replaceChildren(
    ...c.steps.map((s) => {
      const done = isDone(c.name, s.id);
      const here = L.step && s.id === L.step.id;
      const b = h("button", { type: "button", class: "learn-step" + (done ? " done" : "") + (here ? " here" : ""),
        dataset: { step: s.id }, "aria-current": here ? "step" : undefined },
      (done ? "✓ " : "") + local(s, "title"));
      b.addEventListener("click", () => openStep(c.name, s.id));
      return h("li", {}, b);
    }));
}

function firstOpen(c) {
  const s = c.steps.find((x) => !isDone(c.name, x.id));
  return (s || c.steps[0]).id;
}

// --------------------------------------------------------------------------- a step
async function openStep(name, id) {
  if (L.busy) return;
  $("learn-complete")?.remove();
  L.busy = true;
  $("learn-alert").textContent = "";
  try {
    L.step = await api(`/api/learn/${encodeURIComponent(name)}/${encodeURIComponent(id)}`);
  } catch (e) {
    L.busy = false;
    $("learn-alert").textContent = String(e.message || e);
    return;
  }
  L.busy = false;
  L.course = name;
  L.selected = new Set();
  L.focus = 0;
  L.result = null;
  history.replaceState(null, "", `/learn?course=${encodeURIComponent(name)}&step=${encodeURIComponent(id)}`);
  document.body.dataset.step = id;
  $("learn-lesson").hidden = false;
  $("learn-board").hidden = false;
  $("learn-result").hidden = true;
  drawAll();
}

function ctx() {
  const names = [t("learn.you")];
  return { names, seats: null, mySeat: 0 };
}

function drawAll() {
  drawCourses();
  const s = L.step;
  if (!s) return;
  $("learn-step-title").textContent = local(s, "title");
  $("learn-text").textContent = local(s, "text");
  $("learn-task").textContent = local(s, "task");
  $("learn-trick").replaceChildren(renderTrick(s.view, ctx()));
  $("learn-info").replaceChildren(h("h2", {}, t("f.game")), renderInfo(s.view, ctx()));
  drawMine();
  if (L.result) showResult();
}

function selectedCards() {
  const hand = L.step.view.hand || [];
  return [...L.selected].sort((a, b) => a - b).map((i) => hand[i]);
}

/** A bury step: the indices of the hand's cards that came from the kitty (marked, as at the
 * table); none once the bury is done or elsewhere. */
function fromKitty(v) {
  const out = new Set();
  if (v.phase !== "bury" || !Array.isArray(v.kitty_taken)) return out;
  const left = [...v.kitty_taken];
  (v.hand || []).forEach((c, i) => {
    const k = left.indexOf(c);
    if (k >= 0) { left.splice(k, 1); out.add(i); }
  });
  return out;
}

function drawMine() {
  const passed = L.result && L.result.ok;
  drawHand($("hand"), L.step.view.hand, {
    selected: L.selected, focusIndex: L.focus, clickable: !passed, fromKitty: fromKitty(L.step.view),
    onCard: (i) => {
      if (passed) return;
      if (L.selected.has(i)) L.selected.delete(i); else L.selected.add(i);
      L.focus = i;
      drawMine();
    },
    onFocus: (i) => { L.focus = i; },
  });
  $("learn-play").disabled = passed || L.busy || !L.selected.size;
  // a bury step: the button buries the chosen cards and counts them, as the table's bury box
  const v = L.step.view;
  $("learn-play").textContent = v.phase === "bury" && !passed
    ? `${t("kitty.confirm")} (${L.selected.size}/${v.kitty_size})` : t("learn.play");
  $("learn-pass").disabled = passed || L.busy;
  $("learn-pass").hidden = gameFamily(L.step.view.game) === "sheng-ji";   // no passing there
  $("learn-clear").disabled = passed || !L.selected.size;
}

async function check(play) {
  if (L.busy || !L.step) return;
  L.busy = true;
  $("learn-result").hidden = true;             // the answer to the last play is gone
  drawMine();
  const s = L.step;
  try {
    L.result = await api(`/api/learn/${encodeURIComponent(s.course)}/${encodeURIComponent(s.id)}/check`,
      { method: "POST", body: { play } });
  } catch (e) {
    L.busy = false;
    $("learn-alert").textContent = String(e.message || e);
    drawMine();
    return;
  }
  L.busy = false;
  L.result.play = play;
  if (L.result.ok) {
    markDone(s.course, s.id);
    if (L.result.view) s.view = L.result.view;     // the play on the table, out of the hand
  }
  L.selected = new Set();
  drawAll();
}

function nextStep() {
  const c = course();
  const i = c.steps.findIndex((x) => x.id === L.step.id);
  return i >= 0 && i + 1 < c.steps.length ? c.steps[i + 1].id : null;
}

function showResult() {
  const r = L.result;
  const box = $("learn-result");
  const zh = lang() === "zh" ? "zh" : "en";
  let why = "";
  if (!r.legal) why = r.why ? r.why.text[zh] : r.message;
  else if (!r.ok) why = r.hint[zh];
  else why = r.well[zh];
  const verdict = r.ok ? t("learn.right") : r.legal ? t("learn.notThis") : t("learn.illegal");
  box.replaceChildren(
    h("h2", { id: "learn-verdict", class: r.ok ? "learn-right" : "learn-wrong" }, verdict),
    h("p", { id: "learn-why" }, why));
  if (r.ok) {
    const next = nextStep();
    const b = h("button", { type: "button", class: "primary", id: "learn-next" },
      next ? t("learn.next") : t("learn.finished"));
    b.addEventListener("click", () => (next ? openStep(L.course, next) : finish()));
    box.append(b);
  } else {
    box.append(h("p", { class: "muted" }, t("learn.tryAgain")));
  }
  box.hidden = false;
}

function finish() {
  $("learn-lesson").hidden = true;
  $("learn-board").hidden = true;
  L.step = null;
  drawCourses();
  $("learn-alert").textContent = "";
  $("learn-alert").after(h("p", { id: "learn-complete", class: "learn-right" }, t("learn.complete")));
}

// The hand is one tab stop (table-hand.js): arrows, Home and End move inside it, as at the
// table; Space or Enter on a card picks it.
function onHandKey(e) {
  const cards = [...$("hand").querySelectorAll(".card")];
  const i = cards.indexOf(e.target);
  if (i < 0 || !["ArrowRight", "ArrowLeft", "Home", "End"].includes(e.key)) return;
  e.preventDefault();
  const j = e.key === "ArrowRight" ? Math.min(cards.length - 1, i + 1)
    : e.key === "ArrowLeft" ? Math.max(0, i - 1) : e.key === "Home" ? 0 : cards.length - 1;
  L.focus = j;
  cards.forEach((c, k) => { c.tabIndex = k === j ? 0 : -1; });
  cards[j].focus();
}

// ---------------------------------------------------------------------------- start
async function start() {
  translatePage();
  mountSettings($("top"), { onLang: () => { translatePage(); drawAll(); } });
  $("learn-play").addEventListener("click", () => { if (L.selected.size) check(selectedCards().join(" ")); });
  $("learn-pass").addEventListener("click", () => check("pass"));
  $("learn-clear").addEventListener("click", () => { L.selected.clear(); drawMine(); });
  $("hand").addEventListener("keydown", onHandKey);
  try {
    L.courses = (await api("/api/learn")).courses;
  } catch (e) {
    $("learn-alert").textContent = String(e.message || e);
    return;
  }
  const q = new URLSearchParams(location.search);
  const c = L.courses.find((x) => x.name === q.get("course")) || L.courses[0];
  const id = c.steps.some((s) => s.id === q.get("step")) ? q.get("step") : firstOpen(c);
  L.course = c.name;
  await openStep(c.name, id);
  document.body.dataset.ready = "1";
}

start();
