/* The check in the browser (templates/fairplay/browser_check.html, docs/pages.md).

   It runs the verifier the command line runs, fairplay.verify, in Pyodide (CPython compiled
   to WebAssembly), from this site's own static files (fairplay/browser_check.py), loaded only
   when the player asks: there are no rules written again in JavaScript. A check calls the
   command line's main() on the record, written as a file in Pyodide's memory, and shows the
   one line it prints: "OK table ...", "FAILED: ..." or "CANNOT JUDGE: ...", the same words
   as `python -m fairplay.verify FILE [--key KEY]` says of the same file.

   The result region carries data-status (the exit status), data-load-ms and data-check-ms,
   which the browser test and bench/browser_verify.py read. */
(() => {
  "use strict";
  const box = document.getElementById("browser-check");
  if (!box) return;
  box.hidden = false;  // without scripts the page explains the command line only

  const result = document.getElementById("check-result");
  const button = document.getElementById("check-record");
  const fileInput = document.getElementById("record-file");
  const dropZone = document.getElementById("drop-zone");
  const keyInput = document.getElementById("check-key");

  // Python's side: the command line's main(), what it prints kept rather than printed.
  const PYTHON = `
import contextlib, io
from fairplay.verify import main

def check(args):
    """What python -m fairplay.verify ARGS says: its exit status and its words."""
    said = io.StringIO()
    with contextlib.redirect_stdout(said), contextlib.redirect_stderr(said):
        try:
            status = main(list(args))
        except SystemExit as exc:  # the command line refused its arguments
            status = exc.code
    return status, said.getvalue().strip()
`;
  const HEADINGS = {
    0: "The record holds.",
    1: "The record does not hold. The first discrepancy:",
    2: "No verdict either way:",
  };

  let verifier = null;  // a promise: {pyodide, check, loadMs}
  let busy = false;

  function load() {
    if (verifier === null) {
      verifier = (async () => {
        const started = performance.now();
        const loader = new URL(box.dataset.pyodide, location.href);
        const { loadPyodide } = await import(loader.href);
        // The interpreter, its WebAssembly and the standard library lie beside the loader.
        const pyodide = await loadPyodide({ indexURL: new URL(".", loader).href });
        const sitePackages = pyodide.runPython("import sysconfig; sysconfig.get_path('purelib')");
        for (const url of box.dataset.wheels.split(" ")) {
          const response = await fetch(url);
          if (!response.ok) throw new Error(`${url} answered ${response.status}`);
          pyodide.unpackArchive(await response.arrayBuffer(), "wheel", { extractDir: sitePackages });
        }
        pyodide.runPython(PYTHON);
        return { pyodide, check: pyodide.globals.get("check"), loadMs: performance.now() - started };
      })();
      verifier.catch(() => { verifier = null; });  // a load that failed is tried again next time
    }
    return verifier;
  }

  // What the result region says; a verdict carries the command line's exit status.
  function say(parts, status, kind) {
    result.replaceChildren(...parts);
    result.className = `check-result ${kind || (status === undefined ? "" : `status-${status}`)}`;
    for (const name of ["status", "checkMs", "loadMs"]) delete result.dataset[name];
    if (status !== undefined) result.dataset.status = String(status);
  }

  function paragraph(text, className) {
    const p = document.createElement("p");
    if (className) p.className = className;
    p.textContent = text;
    return p;
  }

  // A name the command line would be given: the file's own, never a path or an option.
  function fileName(name) {
    const base = (name || "").split(/[\\/]/).pop() || "record.json";
    return base.startsWith("-") ? `./${base}` : base;
  }

  // The command line's arguments for the record file `name`, from the page's choices.
  function commandLine(name) {
    const args = [name];
    const signer = box.querySelector("input[name=signer]:checked").value;
    if (signer === "keys") args.push("--keys", KEYS);
    if (signer === "key") args.push("--key", keyInput.value.trim());
    if (document.getElementById("without-log").checked) args.push("--without-log");
    return args;
  }

  // The key list, as a player saves it: curl -o keys.json .../api/fairplay/keys/
  const KEYS = "keys.json";
  async function keyList() {
    const response = await fetch(box.dataset.keys, { headers: { Accept: "application/json" } });
    if (!response.ok) throw new Error(`the server answered ${response.status} for its key list`);
    return new Uint8Array(await response.arrayBuffer());
  }

  // The arguments as a person types them in a POSIX shell.
  function shellWords(args) {
    return args.map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`)).join(" ");
  }

  async function check(name, readBytes) {
    if (busy) return;
    busy = true;
    if (button) button.disabled = true;
    fileInput.disabled = true;
    try {
      const loaded = verifier !== null;
      say([paragraph(loaded ? `Checking ${name}…` : "Loading the verifier in your browser…")]);
      const [bytes, python] = await Promise.all([readBytes(), load()]);
      if (!loaded) say([paragraph(`Checking ${name}…`)]);
      // Let the page show that it is checking before Python takes the thread.
      await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
      const path = fileName(name);
      const args = commandLine(path);
      if (args.includes(KEYS)) python.pyodide.FS.writeFile(KEYS, await keyList());
      python.pyodide.FS.writeFile(path, bytes);
      const started = performance.now();
      const answer = python.check(args);
      const checkMs = performance.now() - started;
      const [status, line] = answer.toJs();
      answer.destroy();
      python.pyodide.FS.unlink(path);
      const verdict = document.createElement("p");
      verdict.className = "verdict";
      const samp = document.createElement("samp");
      samp.textContent = line;
      verdict.append(samp);
      const timing = loaded
        ? `Checked in ${(checkMs / 1000).toFixed(2)} s.`
        : `Checked in ${(checkMs / 1000).toFixed(2)} s, after loading the verifier in ${(python.loadMs / 1000).toFixed(1)} s.`;
      const same = paragraph("The same as ", "hint");
      const command = document.createElement("code");
      command.textContent = `python -m fairplay.verify ${shellWords(args)}`;
      same.append(command, ". " + timing);
      say([paragraph(HEADINGS[status] || "No verdict either way:", "verdict-heading"), verdict, same],
          status);
      result.dataset.checkMs = checkMs.toFixed(1);
      result.dataset.loadMs = python.loadMs.toFixed(1);
    } catch (error) {
      say([paragraph(`The check could not run in this browser: ${error.message || error}. ` +
                     "The command line still checks the record.")], undefined, "not-run");
    } finally {
      busy = false;
      if (button) button.disabled = false;
      fileInput.disabled = false;
    }
  }

  async function fromServer() {
    const response = await fetch(box.dataset.record, { headers: { Accept: "application/json" } });
    if (!response.ok) throw new Error(`the server answered ${response.status} for the record`);
    return new Uint8Array(await response.arrayBuffer());
  }

  function checkFile(file) {
    if (file) check(fileName(file.name), async () => new Uint8Array(await file.arrayBuffer()));
  }

  if (button) button.addEventListener("click", () => check(box.dataset.recordName, fromServer));
  // Typing a key chooses to check against it.
  keyInput.addEventListener("input", () => { document.getElementById("signer-key").checked = true; });
  fileInput.addEventListener("change", () => {
    const [file] = fileInput.files;
    checkFile(file);
    fileInput.value = "";  // the same file chosen again is checked again
  });
  dropZone.addEventListener("dragover", (event) => {
    event.preventDefault();
    dropZone.classList.add("dragging");
  });
  dropZone.addEventListener("dragleave", () => dropZone.classList.remove("dragging"));
  dropZone.addEventListener("drop", (event) => {
    event.preventDefault();
    dropZone.classList.remove("dragging");
    if (!busy) checkFile(event.dataTransfer.files[0]);
  });
})();
