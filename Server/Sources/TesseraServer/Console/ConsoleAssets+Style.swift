extension ConsoleAssets {
    /// `console.css`: The stylesheet: CSS grid, a nav that collapses under 760 px.
    static let style = Asset(css: #"""
:root {
  --bg: #f5f6f8; --card: #fff; --ink: #1c2330; --muted: #5d6776; --line: #dde1e7;
  --accent: #2f5bd3; --accent-ink: #fff; --danger: #b3261e; --ok: #1e7d3c; --warn: #9a6700;
  font-family: system-ui, -apple-system, "Segoe UI", "Liberation Sans", sans-serif; font-size: 15px; color: var(--ink);
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); line-height: 1.45; }
[hidden] { display: none !important; }
h1 { font-size: 1.5rem; margin: 0 0 .75rem; }
h2 { font-size: 1.15rem; margin: 0 0 .75rem; }
code, .mono { font-family: "Liberation Mono", ui-monospace, monospace; font-size: .9em; word-break: break-all; }
.muted { color: var(--muted); }
label { display: block; font-weight: 600; margin: .5rem 0 .25rem; }
input, select, textarea { font: inherit; padding: .45rem .6rem; border: 1px solid var(--line); border-radius: 6px; width: 100%; background: #fff; }
textarea { min-height: 8rem; font-family: "Liberation Mono", ui-monospace, monospace; font-size: .85rem; }
button { font: inherit; padding: .45rem .9rem; border-radius: 6px; border: 1px solid var(--accent); background: var(--accent); color: var(--accent-ink); cursor: pointer; white-space: nowrap; }
button.quiet { background: transparent; color: var(--accent); }
button.danger { background: #fff; color: var(--danger); border-color: var(--danger); }
button.danger.armed { background: var(--danger); color: #fff; }
button:disabled { opacity: .5; cursor: default; }
.card { overflow-wrap: anywhere; background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 1rem 1.25rem; margin-bottom: 1rem; }
.signin { min-height: 100vh; display: grid; place-items: center; padding: 1rem; }
.signin-card { width: min(26rem, 100%); }
.signin-card button { margin-top: 1rem; width: 100%; }
.shell { display: grid; grid-template-columns: 13rem 1fr; grid-template-rows: auto 1fr; grid-template-areas: "top top" "nav view"; min-height: 100vh; }
.topbar { grid-area: top; display: flex; align-items: center; gap: 1rem; padding: .6rem 1rem; background: var(--ink); color: #fff; }
.topbar .brand { font-weight: 700; flex: 1; }
.topbar button.quiet { color: #fff; border-color: #fff; }
.menu { display: none; background: transparent; border-color: #fff; }
.nav { grid-area: nav; display: flex; flex-direction: column; padding: 1rem .5rem; gap: .15rem; border-right: 1px solid var(--line); background: var(--card); }
.nav a { padding: .45rem .75rem; border-radius: 6px; color: var(--ink); text-decoration: none; }
.nav a[aria-current="page"] { background: var(--accent); color: var(--accent-ink); }
.view { grid-area: view; padding: 1.25rem; min-width: 0; }
.row { display: flex; flex-wrap: wrap; gap: .75rem; align-items: flex-end; }
.row > .grow { flex: 1 1 12rem; }
.actions { display: flex; flex-wrap: wrap; gap: .4rem; }
.table-wrap { overflow-x: auto; }
table { width: 100%; border-collapse: collapse; overflow-wrap: break-word; }
th, td { text-align: left; padding: .5rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: .8rem; text-transform: uppercase; letter-spacing: .03em; color: var(--muted); }
.badge { display: inline-block; padding: .05rem .5rem; border-radius: 999px; font-size: .8rem; border: 1px solid currentColor; }
.badge.ok { color: var(--ok); } .badge.bad { color: var(--danger); } .badge.warn { color: var(--warn); }
.empty { padding: 1.5rem; text-align: center; color: var(--muted); border: 1px dashed var(--line); border-radius: 10px; }
.problem { margin-top: .75rem; padding: .6rem .8rem; border-left: 4px solid var(--danger); background: #fdecea; color: var(--danger); border-radius: 4px; }
.notice { margin-top: .75rem; padding: .6rem .8rem; border-left: 4px solid var(--ok); background: #e9f6ee; border-radius: 4px; }
.secret { margin-top: .75rem; padding: .75rem; border: 2px solid var(--warn); border-radius: 8px; background: #fff8e5; }
.secret .value { display: block; margin: .5rem 0; padding: .4rem; background: #fff; border: 1px solid var(--line); border-radius: 4px; }
.live { list-style: none; margin: 0; padding: 0; }
.live li { display: grid; grid-template-columns: 6.5rem 11rem minmax(0, 1fr); gap: .5rem; padding: .45rem .25rem; border-bottom: 1px solid var(--line); }
.live li > * { min-width: 0; overflow-wrap: anywhere; }
.live li.fresh { background: #eef3ff; }
.users .devices { margin-top: .35rem; }
@media (max-width: 760px) {
  .shell { grid-template-columns: 1fr; grid-template-areas: "top" "nav" "view"; grid-template-rows: auto auto 1fr; }
  .menu { display: inline-block; }
  .nav { display: none; border-right: 0; border-bottom: 1px solid var(--line); }
  .nav.open { display: flex; }
  .view { padding: .75rem; }
  .live li { grid-template-columns: 6.5rem minmax(0, 1fr); }
  .live li .detail { grid-column: 1 / -1; }
  th.wide, td.wide { display: none; }
}
"""#)
}
