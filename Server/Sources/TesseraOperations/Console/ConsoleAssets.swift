/// The admin console's files, compiled into the server (no build step, no third-party assets, nothing
/// read from disk at run time): one HTML page, one stylesheet and plain ES modules, one module a page.
///
/// The files themselves are in `Console/web/` (`index.html`, `console.css`, `app.js`, `page-<id>.js`, …,
/// named as they are served). To change one, edit it there and run `scripts/generate-console-assets.sh`,
/// which writes them into `ConsoleAssets+Generated.swift` (``page`` and ``files``; never edit that file by
/// hand, and commit it with the change). `scripts/test.sh` runs the script with `--check`: it fails when
/// the generated file is stale or, with node installed, when a module has a syntax error.
///
/// A new console page is a module `web/page-<id>.js` (exporting `render(view, params)`) and one entry in
/// `pages` in `web/app.js`; a new file in `web/` is served at `/admin/<name>` once generated
/// (`.html`, `.css` and `.js` only).
package enum ConsoleAssets {
    /// A file and its media type.
    package struct Asset: Sendable {
        package let contentType: String
        package let body: String
    }
}
