import Foundation

extension SignInPage {
    /// The page's style sheet with the client's accent colour (buttons, links, focus, progress). The colour
    /// is written from its parsed red, green and blue, so nothing but `#rrggbb` reaches the CSS. Text
    /// colours keep WCAG AA contrast on white: #1d1d1f (16.8:1), #545458 (7.4:1), the accent (≥ 4.5:1).
    static func style(accent: String) -> String {
        let (red, green, blue) = ClientBranding.rgb(accent) ?? ClientBranding.rgb(ClientBranding.defaultAccent) ?? (11, 87, 208)
        let color = String(format: "#%02x%02x%02x", red, green, blue)
        return """
            :root { --accent: \(color); --text: #1d1d1f; --muted: #545458; --line: #d2d2d7; --failed: #b3261e; --ok: #1e7d32; }
            * { box-sizing: border-box; }
            body { font-family: system-ui, -apple-system, "Segoe UI", "Noto Sans", "Noto Sans KR", "Apple SD Gothic Neo", sans-serif; margin: 0;
              min-height: 100vh; background: #f5f5f7; color: var(--text); line-height: 1.45; display: flex; flex-direction: column; align-items: center; }
            main.card { width: 100%; max-width: 28rem; margin: 3rem 1rem 1rem; padding: 2rem 1.5rem; background: #fff; border-radius: 1rem;
              box-shadow: 0 1px 3px rgba(0,0,0,.08), 0 8px 24px rgba(0,0,0,.06); overflow-wrap: anywhere; }
            @media (max-width: 400px) { main.card { margin: 0; border-radius: 0; box-shadow: none; min-height: calc(100vh - 3rem); padding: 1.5rem 1rem; } }
            .logo { display: block; width: 56px; height: 56px; object-fit: contain; margin: 0 0 1rem; border-radius: .75rem; }
            h1 { font-size: 1.5rem; line-height: 1.25; margin: 0 0 1.25rem; }
            a { color: var(--accent); }
            label { display: block; margin: 0 0 .4rem; font-weight: 600; }
            input[type=text] { width: 100%; padding: .75rem; font-size: 1rem; border: 1px solid #6e6e73; border-radius: .5rem; color: var(--text); }
            button, a.button { font: inherit; font-size: 1rem; border-radius: .5rem; cursor: pointer; }
            .primary { display: inline-block; width: 100%; margin-top: 1rem; padding: .8rem 1.4rem; border: 1px solid var(--accent);
              background: var(--accent); color: #fff; text-align: center; text-decoration: none; font-weight: 600; }
            button:focus-visible, input:focus-visible, a:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
            button.link { background: none; color: var(--accent); border: none; padding: .6rem 0; margin-right: 1.5rem; text-decoration: underline;
              min-height: 44px; }
            a.link { display: inline-block; padding: .6rem 0; min-height: 44px; }
            .actions { margin-top: 1rem; } .actions form, form.inline { display: inline; }
            #status { min-height: 1.45em; margin: 1rem 0 0; color: var(--text); }
            #status[data-status="declined"], #status[data-status="expired"], #status[data-status="cancelled"], #status[data-status="failed"],
            #status[data-status="mismatch"], #status[data-status="error"] { color: var(--failed); font-weight: 600; }
            .progress { list-style: none; margin: 0; padding: 0; }
            .progress li { position: relative; padding: .45rem 0 .45rem 2rem; color: var(--muted); }
            .progress li::before { content: ""; position: absolute; left: 0; top: .55rem; width: 1.25rem; height: 1.25rem; border-radius: 50%;
              border: .15rem solid var(--line); background: #fff; }
            .progress li[data-state="current"] { color: var(--text); font-weight: 600; }
            .progress li[data-state="current"]::before { border-color: var(--line); border-top-color: var(--accent); animation: spin 1s linear infinite; }
            .progress li[data-state="done"] { color: var(--text); }
            .progress li[data-state="done"]::before { content: "✓"; border-color: var(--ok); background: var(--ok); color: #fff; font-size: .8rem;
              line-height: .95rem; text-align: center; }
            .progress li[data-state="failed"] { color: var(--failed); font-weight: 600; }
            .progress li[data-state="failed"]::before { content: "✕"; border-color: var(--failed); background: var(--failed); color: #fff; font-size: .8rem;
              line-height: .95rem; text-align: center; }
            @keyframes spin { to { transform: rotate(360deg); } }
            @media (prefers-reduced-motion: reduce) { .progress li::before { animation: none !important; } }
            .match { font-size: 1.1rem; margin: 0 0 1.25rem; }
            #match-number { display: inline-block; white-space: nowrap; font-size: 3rem; line-height: 1; letter-spacing: .08em; vertical-align: middle;
              padding: .2rem .8rem; border-radius: .6rem; background: #f5f5f7; color: var(--text); font-variant-numeric: tabular-nums; }
            footer { color: var(--muted); font-size: .875rem; padding: 1rem; }
            """
    }
}
