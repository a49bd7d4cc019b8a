// Sound and vibration of the web game: short sounds made by the Web Audio API (no audio files) for a
// roll of the dice, a bank, a zilch and the end of a game, and a vibration (navigator.vibrate) on a
// zilch and when the turn comes to a player on this phone.
//
// Two switches, remembered on the phone (localStorage zilchFeel = {sound, vibrate}, only what the
// player chose). Sound is off until the player turns it on: a page that makes noise unasked is
// unwelcome on a bus or at night, and a screen reader's speech should not be talked over. Vibration
// is on, except where the player asked their system for reduced motion (prefers-reduced-motion),
// where it is off until they turn it on. Where a browser has no Web Audio or no vibration, its switch
// is hidden and nothing is called; no call here ever throws into the game.
"use strict";
window.zilchFeel = (() => {
  const KEY = "zilchFeel";
  const Audio = window.AudioContext || window.webkitAudioContext || null;
  const canVibrate = typeof navigator !== "undefined" && typeof navigator.vibrate === "function";
  const reduced = () => !!(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
  let ctx = null;

  function chosen() {
    try { return JSON.parse(localStorage.getItem(KEY)) || {}; } catch (e) { return {}; }
  }
  function settings() {
    const c = chosen();
    return {
      sound: !!Audio && (typeof c.sound === "boolean" ? c.sound : false),
      vibrate: canVibrate && (typeof c.vibrate === "boolean" ? c.vibrate : !reduced()),
    };
  }
  function choose(what, on) {
    const c = chosen();
    c[what] = !!on;
    try { localStorage.setItem(KEY, JSON.stringify(c)); } catch (e) { /* private mode: for this page only */ }
    if (what === "sound" && on) audio(); // made (and resumed) inside the tap that turned sound on
  }

  // The audio context, made once and resumed: browsers let a page sound only after a tap.
  function audio() {
    if (!Audio) return null;
    try {
      if (!ctx) ctx = new Audio();
      if (ctx.state === "suspended" && ctx.resume) ctx.resume().catch(() => {});
    } catch (e) { ctx = null; }
    return ctx;
  }

  // A tone: an oscillator of `type` from `f0` Hz (gliding to `f1`), starting `at` s from now for
  // `dur` s, at `gain`, fading out.
  function tone(a, { type = "sine", f0, f1 = f0, at = 0, dur = 0.12, gain = 0.15 }) {
    const t0 = a.currentTime + at;
    const o = a.createOscillator(), g = a.createGain();
    o.type = type;
    o.frequency.setValueAtTime(f0, t0);
    if (f1 !== f0) o.frequency.exponentialRampToValueAtTime(f1, t0 + dur);
    g.gain.setValueAtTime(gain, t0);
    g.gain.exponentialRampToValueAtTime(0.001, t0 + dur);
    o.connect(g).connect(a.destination);
    o.start(t0);
    o.stop(t0 + dur + 0.02);
  }

  // A click of noise (a die hitting the table), `at` s from now.
  function click(a, at, gain = 0.25) {
    const n = Math.floor(a.sampleRate * 0.03);
    const buf = a.createBuffer(1, n, a.sampleRate);
    const d = buf.getChannelData(0);
    for (let i = 0; i < n; i++) d[i] = (Math.random() * 2 - 1) * (1 - i / n) ** 3;
    const src = a.createBufferSource(), g = a.createGain();
    src.buffer = buf;
    g.gain.value = gain;
    src.connect(g).connect(a.destination);
    src.start(a.currentTime + at);
  }

  const SOUNDS = {
    roll: (a) => { for (let i = 0; i < 5; i++) click(a, i * 0.055 + Math.random() * 0.02, 0.18 + Math.random() * 0.1); },
    bank: (a) => { tone(a, { f0: 660, at: 0, dur: 0.1 }); tone(a, { f0: 990, at: 0.09, dur: 0.18 }); },
    zilch: (a) => { tone(a, { type: "sawtooth", f0: 320, f1: 90, dur: 0.45, gain: 0.08 }); },
    win: (a) => { [523, 659, 784, 1047].forEach((f, i) => tone(a, { type: "triangle", f0: f, at: i * 0.11, dur: 0.22, gain: 0.14 })); },
  };
  const BUZZ = { zilch: [90, 60, 90], turn: [40] };

  // The sound of `kind` (roll, bank, zilch, win) if sound is on; true if it was played.
  function play(kind) {
    if (!settings().sound || !SOUNDS[kind]) return false;
    const a = audio();
    if (!a) return false;
    try { SOUNDS[kind](a); return true; } catch (e) { return false; }
  }

  // The vibration of `kind` (zilch, turn) if vibration is on; true if it was asked for.
  function buzz(kind) {
    if (!settings().vibrate || !BUZZ[kind]) return false;
    try { return navigator.vibrate(BUZZ[kind]) !== false; } catch (e) { return false; }
  }

  return { settings, choose, play, buzz, canSound: !!Audio, canVibrate };
})();
