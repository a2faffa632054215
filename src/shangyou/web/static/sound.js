// Card sounds, made with the Web Audio API (no audio files): a card laid on the table, a trick
// won, and "your turn". On by default; off when the system asks for reduced motion
// (prefers-reduced-motion, until the player turns sound on in the settings) or when the player
// turned sound off there (settings.js, `sound`).
//
// Browsers start audio only after a gesture on the page: the first tap or key press wakes the
// audio context; sounds asked for before it are counted but not heard.
//
// window.__sounds counts the sounds played, by kind, for the browser tests.

import { gameFamily } from "./common.js";
import { settings } from "./settings.js";

const played = { play: 0, trick: 0, turn: 0 };
window.__sounds = played;
let audio = null;

function context() {
  if (!audio) {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return null;
    audio = new Ctx();
  }
  if (audio.state === "suspended") audio.resume().catch(() => {});
  return audio;
}

function wake() {
  if (settings().sound) {
    try { context(); } catch { /* no audio here */ }
  }
}
document.addEventListener("pointerdown", wake, { capture: true });
document.addEventListener("keydown", wake, { capture: true });

/** A note: `type` wave at `freq` Hz from `at` seconds for `len`, at `level`, fading out. */
function tone(a, { freq, at = 0, len = 0.2, level = 0.08, type = "sine" }) {
  const o = a.createOscillator();
  const g = a.createGain();
  const t0 = a.currentTime + at;
  o.type = type;
  o.frequency.setValueAtTime(freq, t0);
  g.gain.setValueAtTime(0.0001, t0);
  g.gain.exponentialRampToValueAtTime(level, t0 + 0.01);
  g.gain.exponentialRampToValueAtTime(0.0001, t0 + len);
  o.connect(g).connect(a.destination);
  o.start(t0);
  o.stop(t0 + len + 0.02);
}

/** A card laid down: a short burst of noise through a band-pass filter (a soft "snap"). */
function snap(a) {
  const len = 0.07;
  const buf = a.createBuffer(1, Math.ceil(a.sampleRate * len), a.sampleRate);
  const data = buf.getChannelData(0);
  for (let i = 0; i < data.length; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / data.length) ** 3;
  const src = a.createBufferSource();
  src.buffer = buf;
  const f = a.createBiquadFilter();
  f.type = "bandpass";
  f.frequency.value = 1800;
  f.Q.value = 0.9;
  const g = a.createGain();
  g.gain.value = 0.35;
  src.connect(f).connect(g).connect(a.destination);
  src.start();
}

const VOICES = {
  play: snap,
  trick: (a) => { tone(a, { freq: 523, len: 0.16, type: "triangle" });
                  tone(a, { freq: 784, at: 0.09, len: 0.22, type: "triangle" }); },
  turn: (a) => { tone(a, { freq: 660, len: 0.18 }); tone(a, { freq: 880, at: 0.12, len: 0.2 }); },
};

/** Play a sound of `kind` ("play", "trick", "turn") if sound is on; true if it was. */
export function playSound(kind) {
  if (!VOICES[kind] || !settings().sound) return false;
  played[kind] += 1;
  if (kind === "turn") {          // the older name of the turn sound's count
    document.body.dataset.beeps = String(Number(document.body.dataset.beeps || 0) + 1);
  }
  try {
    const a = context();
    if (a && a.state === "running") VOICES[kind](a);
  } catch { /* no audio here */ }
  return true;
}

function tricksDone(v) {
  if (!v) return null;
  return gameFamily(v.game) === "sheng-ji" ? (v.tricks || []).length : (v.played || []).length;
}

/**
 * The sounds of one new state: a card laid (any play among its events) and a trick won (a
 * "trick" event, or one more trick done in the same hand). `before` and `after` are the
 * views before and after it. Not for the first state after a (re)connect: catching up is
 * silent.
 */
export function stateSounds(before, after, events) {
  const evs = events || [];
  if (evs.some((e) => e && e.event === "play")) playSound("play");
  const won = evs.some((e) => e && e.event === "trick") || (before && after &&
    before.hand_number === after.hand_number && tricksDone(after) > tricksDone(before));
  if (won) setTimeout(() => playSound("trick"), 120);
}
