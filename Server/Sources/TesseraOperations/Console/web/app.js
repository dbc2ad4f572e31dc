// The console's shell: sign-in, the navigation and hash routing (#/<page>?<params>).
// A new page is one module (page-<id>.js exporting render(view, params), which may return a cleanup
// function) and one entry below.
import { request, setCsrf } from "./api.js";
import { el, problemBox } from "./ui.js";

const pages = [
  { id: "clients", title: "Clients", module: "./page-clients.js" },
  { id: "users", title: "Users & devices", module: "./page-users.js" },
  { id: "sessions", title: "Sessions", module: "./page-sessions.js" },
  { id: "nodes", title: "Verifier nodes", module: "./page-nodes.js" },
  { id: "keys", title: "Signing keys", module: "./page-keys.js" },
  { id: "webhooks", title: "Webhooks", module: "./page-webhooks.js" },
  { id: "audit", title: "Audit log", module: "./page-audit.js" },
  { id: "live", title: "Live", module: "./page-live.js" },
];

const $ = (id) => document.getElementById(id);
let cleanup = null;

function showSignIn(message) {
  if (cleanup) { cleanup(); cleanup = null; }
  $("shell").hidden = true;
  $("signin").hidden = false;
  const box = $("signin-error");
  box.hidden = !message;
  box.textContent = message || "";
  $("token").focus();
}

function showShell() {
  $("signin").hidden = true;
  $("shell").hidden = false;
  route();
}

async function route() {
  if ($("shell").hidden) return;
  const [path, query] = location.hash.replace(/^#\/?/, "").split("?");
  const page = pages.find((p) => p.id === path) || pages[0];
  for (const link of $("nav").querySelectorAll("a")) {
    if (link.dataset.page === page.id) link.setAttribute("aria-current", "page"); else link.removeAttribute("aria-current");
  }
  $("nav").classList.remove("open");
  $("menu").setAttribute("aria-expanded", "false");
  if (cleanup) { cleanup(); cleanup = null; }
  const view = $("view");
  view.replaceChildren();
  view.dataset.page = page.id;
  document.title = page.title + " · Tessera admin";
  try {
    const module = await import(page.module);
    const done = await module.render(view, new URLSearchParams(query || ""));
    if (typeof done === "function") cleanup = done;
  } catch (error) {
    view.append(problemBox(error));
  }
}

async function signIn(event) {
  event.preventDefault();
  const input = $("token");
  const button = $("signin-submit");
  button.disabled = true;
  try {
    const state = await request("POST", "/admin/session", { token: input.value });
    input.value = "";
    setCsrf(state.csrf);
    showShell();
  } catch (error) {
    $("signin-error").hidden = false;
    $("signin-error").replaceChildren(problemBox(error));
  } finally {
    button.disabled = false;
  }
}

async function signOut() {
  try { await request("DELETE", "/admin/session"); } catch (_) { /* the session is gone either way */ }
  setCsrf("");
  showSignIn("Signed out.");
}

function start() {
  $("nav").append(...pages.map((p) => el("a", { href: "#/" + p.id, "data-page": p.id }, p.title)));
  $("signin-form").addEventListener("submit", signIn);
  $("signout").addEventListener("click", signOut);
  $("menu").addEventListener("click", () => {
    const open = $("nav").classList.toggle("open");
    $("menu").setAttribute("aria-expanded", String(open));
  });
  window.addEventListener("hashchange", route);
  window.addEventListener("console:signed-out", () => showSignIn("The console session ended: sign in again."));
  request("GET", "/admin/session").then((state) => {
    if (state.signedIn) { setCsrf(state.csrf); showShell(); } else showSignIn();
  }, () => showSignIn());
}

start();