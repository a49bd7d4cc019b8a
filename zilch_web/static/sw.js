// The web game's service worker: the pages, the rules and the page's files keep working offline
// (the last copy seen), while play itself always asks the server (/api/ is never answered from here).
// Network first: online, every page and file is the server's current one.
"use strict";
const CACHE = "zilch-v5";
const SHELL = ["/", "/static/app.js", "/static/style.css", "/static/text-en.js", "/static/text-pt-BR.js", "/static/text-sv.js", "/static/feel.js", "/static/tell.js", "/static/fair.js",
  "/static/review.js", "/static/history.js",
  "/static/favicon.svg",
  "/static/manifest.webmanifest", "/static/icon-192.png", "/rules/zonk"];
const KEEP = (path) => path === "/" || path.startsWith("/static/") || path.startsWith("/rules/") || /^\/g\/[^/]+\/rules$/.test(path);

self.addEventListener("install", (ev) => {
  ev.waitUntil(caches.open(CACHE).then((c) => c.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (ev) => {
  ev.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (ev) => {
  const req = ev.request;
  const url = new URL(req.url);
  if (req.method !== "GET" || url.origin !== self.location.origin || url.pathname.startsWith("/api/")) return;
  ev.respondWith(fetch(req).then((res) => {
    if (res.ok && KEEP(url.pathname)) {
      const copy = res.clone();
      caches.open(CACHE).then((c) => c.put(req, copy));
    }
    return res;
  }).catch(() => caches.match(req).then((hit) => hit
    || (req.mode === "navigate" ? caches.match("/") : Response.error()))));
});
