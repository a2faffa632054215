// The search bot's review of one seat on the replay page (GET /api/matches/{id}/review?seat=N,
// docs/protocol.md "Reviews"): a progress bar while it is worked out in the background, then
// the marks on the timeline, "better: ..." with the bot's reason at each marked move, "followed
// the hint" at each move that did (the review judges with the hint's search: docs/review.md),
// and a summary (share of good decisions, the biggest losses). Thresholds as the server sends
// them.

import { reasonElement, richText } from "./cards.js";
import { api, h } from "./common.js";
import { lang } from "./i18n.js";

const STRINGS = {
  en: {
    title: "Review", seat: "Seat", start: "Review this seat", working: "The search bot is reviewing: {done} of {total} moves",
    failed: "The review failed: {msg}", marks: "Marks: inaccuracy ?! from {i}, mistake ? from {m}, blunder ?? from {b} {unit} lost",
    summary: "{n} decisions reviewed: {good}% good · inaccuracies ?! {inaccuracy} · mistakes ? {mistake} · blunders ?? {blunder}",
    biggest: "Biggest losses", better: "better: ", move: "move {k}", lost: "{loss} {unit} lost", none: "No decision to review.",
    inaccuracy: "inaccuracy", mistake: "mistake", blunder: "blunder", points: "points", levels: "levels",
    followed: "followed the hint ({level})", hinted: "{n} of them followed the hint",
    search: "search", heuristic: "heuristic",
  },
  zh: {
    title: "复盘", seat: "座位", start: "复盘这个座位", working: "搜索机器人正在复盘：{done} / {total} 步",
    failed: "复盘失败：{msg}", marks: "标记：损失 {i} {unit}起为欠佳 ?!，{m} 起为错误 ?，{b} 起为大错 ??",
    summary: "复盘了 {n} 个决定：{good}% 良好 · 欠佳 ?! {inaccuracy} · 错误 ? {mistake} · 大错 ?? {blunder}",
    biggest: "损失最大的几步", better: "更好：", move: "第 {k} 步", lost: "损失 {loss} {unit}", none: "没有需要复盘的决定。",
    inaccuracy: "欠佳", mistake: "错误", blunder: "大错", points: "分", levels: "级",
    followed: "按提示走（{level}）", hinted: "其中 {n} 步按提示走",
    search: "搜索", heuristic: "启发式",
  },
};
const SYMBOL = { inaccuracy: "?!", mistake: "?", blunder: "??" };
const COLOR = { inaccuracy: "#c9a227", mistake: "#d9822b", blunder: "#c23030" };

function s(key, params = {}) {
  const d = STRINGS[lang()] || STRINGS.en;
  const text = d[key] ?? STRINGS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (m, k) => (params[k] === undefined ? m : String(params[k])));
}

const RV = { review: null, byIndex: new Map(), opts: null, timer: null, ticket: 0 };


/** "followed the hint (search)" for a decision that did, else "". */
function followedText(d) {
  return d && d.hint ? s("followed", { level: s(d.hint) }) : "";
}

/** The note for move ``index`` of the log (0-based) when the review marked it or the move
 * followed the hint, else null. */
export function reviewNote(index) {
  const d = RV.byIndex.get(index);
  if (!d || (d.mark === "good" && !d.hint)) return null;
  const followed = followedText(d);
  if (d.mark === "good") {
    return h("span", { class: "review-note", dataset: { mark: d.mark, hint: d.hint } },
      ` ✓ ${followed}`);
  }
  const unit = s(RV.review.unit);
  return h("span", { class: "review-note", dataset: { mark: d.mark, ...(d.hint ? { hint: d.hint } : {}) } },
    ` ${SYMBOL[d.mark]} ${s(d.mark)} (${s("lost", { loss: d.loss.toFixed(2), unit })})`,
    followed ? ` · ${followed}` : "", ` · ${s("better")}`,
    h("span", { class: "play" }, richText(d.best, [d.best])),
    d.reason ? " — " : "", d.reason ? reasonElement(d.reason, lang()) : "");
}

function timeline() {
  const bar = RV.opts.marks;
  if (!bar) return;
  bar.replaceChildren();
  if (!RV.review) return;
  bar.style.position = "relative";
  bar.style.height = "10px";
  const n = RV.opts.total();
  // under the slider: its left edge and width, in the bar's coordinates
  const slider = RV.opts.slider.getBoundingClientRect();
  const own = bar.getBoundingClientRect();
  const x0 = slider.left - own.left;
  for (const d of RV.review.decisions) {
    if (d.mark === "good") continue;
    const x = x0 + (n ? ((d.index + 1) / n) * slider.width : 0) - 3;
    const mark = h("span", {
      role: "button", tabindex: "0", class: "review-mark",
      title: `${d.index + 1}: ${d.played} ${SYMBOL[d.mark]} → ${d.best}`,
      dataset: { mark: d.mark, index: String(d.index) },
      style: `position:absolute;left:${x}px;top:0;width:6px;height:10px;`
        + `background:${COLOR[d.mark]};cursor:pointer`,
    });
    mark.addEventListener("keydown", (e) => { if (e.key === "Enter") RV.opts.jump(d.index + 1); });
    mark.addEventListener("click", () => RV.opts.jump(d.index + 1));
    bar.append(mark);
  }
}

function render(box) {
  const o = RV.opts;
  const head = [h("h2", {}, s("title"))];
  const sel = h("select", { id: "review-seat", "aria-label": s("seat") });
  for (let i = 0; i < o.players; i++) sel.append(h("option", { value: String(i) }, o.seatName(i)));
  sel.value = String(o.seat);
  const go = h("button", { type: "button", id: "review-start" }, s("start"));
  go.addEventListener("click", () => { o.seat = Number(sel.value); load(box); });
  head.push(h("div", { class: "row" }, sel, go));
  box.replaceChildren(...head);
}

function showReview(box, review) {
  RV.review = review;
  RV.byIndex = new Map(review.decisions.map((d) => [d.index, d]));
  const th = review.thresholds;
  const unit = s(review.unit);
  const c = review.counts;
  const body = [h("p", { class: "muted review-thresholds" },
                  s("marks", { i: th.inaccuracy, m: th.mistake, b: th.blunder, unit }))];
  if (!review.decisions.length) {
    body.push(h("p", {}, s("none")));
  } else {
    body.push(h("p", { class: "review-summary" }, s("summary", {
      n: review.decisions.length, good: Math.round(100 * review.good_share),
      inaccuracy: c.inaccuracy, mistake: c.mistake, blunder: c.blunder }),
      review.hinted ? ` · ${s("hinted", { n: review.hinted })}` : ""));
    const big = (review.biggest || []).map((i) => RV.byIndex.get(i)).filter(Boolean);
    if (big.length) {
      const ol = h("ol", { class: "review-biggest" });
      for (const d of big) {
        const a = h("a", { href: "#", dataset: { index: String(d.index) } }, s("move", { k: d.index + 1 }));
        a.addEventListener("click", (e) => { e.preventDefault(); RV.opts.jump(d.index + 1); });
        ol.append(h("li", {}, a, ": ", h("span", { class: "play" }, richText(d.played, [d.played])),
          ` ${SYMBOL[d.mark]} → `, h("span", { class: "play" }, richText(d.best, [d.best])),
          ` (${s("lost", { loss: d.loss.toFixed(2), unit })})`,
          d.hint ? ` · ${followedText(d)}` : "",
          d.reason ? h("div", { class: "muted" }, reasonElement(d.reason, lang())) : ""));
      }
      body.push(h("h3", {}, s("biggest")), ol);
    }
  }
  box.append(h("div", { class: "review-result" }, ...body));
  timeline();
  RV.opts.changed();
}

async function load(box) {
  const o = RV.opts;
  const ticket = ++RV.ticket;
  clearTimeout(RV.timer);
  RV.review = null;
  RV.byIndex = new Map();
  timeline();
  o.changed();
  render(box);
  const progress = h("progress", { id: "review-progress", max: "1", value: "0" });
  const label = h("span", { class: "muted" });
  box.append(h("div", { class: "review-progress" }, progress, " ", label));
  const poll = async () => {
    let data;
    try {
      data = await api(`/api/matches/${encodeURIComponent(o.matchId)}/review?seat=${o.seat}`);
    } catch (ex) {
      if (ticket === RV.ticket) label.textContent = s("failed", { msg: ex.message });
      return;
    }
    if (ticket !== RV.ticket) return;
    if (data.status === "done") {
      box.querySelector(".review-progress")?.remove();
      showReview(box, data.review);
      return;
    }
    if (data.status === "failed") {
      label.textContent = s("failed", { msg: "" });
      return;
    }
    progress.max = String(Math.max(1, data.total));
    progress.value = String(data.done);
    label.textContent = s("working", { done: data.done, total: data.total });
    RV.timer = setTimeout(poll, 1000);
  };
  poll();
}

/** The review panel in ``box``; ``opts``: matchId, players, seat, seatName(i), total(),
 * jump(k), changed() (the page redraws its last-move line), marks (the element under the slider
 * that shows the marks), slider. */
export function mountReview(box, opts) {
  if (!RV.opts) window.addEventListener("resize", () => timeline());
  RV.opts = opts;
  box.hidden = false;
  render(box);
  if (RV.review) showReview(box, RV.review);
}
