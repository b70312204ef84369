// The page's script: it sends each question to paramcount (the local server, or the Python
// running in this page) and shows the answer it gets back. It computes nothing itself.
const $ = (id) => document.getElementById(id);
const mode = document.documentElement.dataset.mode;
let answered = 0;

async function servedBackend() {
  return async (kind, text) => {
    const response = await fetch("answer/" + kind, {
      method: "POST",
      headers: { "Content-Type": "text/plain; charset=utf-8" },
      body: text,
      credentials: "omit",
    });
    return response.json();
  };
}

async function staticBackend() {
  // paramcount's and click's files are fetched while Pyodide starts.
  const archives = ["paramcount.zip", "click.zip"].map(
    (name) => fetch(name).then((response) => response.arrayBuffer()));
  const { loadPyodide } = await import("./pyodide/pyodide.mjs");
  const pyodide = await loadPyodide({ indexURL: new URL("pyodide/", location.href).href });
  performance.mark("paramcount:pyodide-started");
  for (const data of await Promise.all(archives)) {
    pyodide.unpackArchive(new Uint8Array(data), "zip", { extractDir: "/home/pyodide/site" });
  }
  pyodide.runPython("import sys; sys.path.insert(0, '/home/pyodide/site')");
  const pageAnswer = pyodide.runPython("from paramcount.cli.asked import page_answer\npage_answer");
  performance.mark("paramcount:imported");
  return async (kind, text) => JSON.parse(pageAnswer(kind, text));
}

const backend = (mode === "static" ? staticBackend() : servedBackend()).catch((error) => {
  setStatus("paramcount could not start in this page: " + error, true);
  throw error;
});

function setStatus(text, error = false) {
  $("status").textContent = text;
  $("status").className = error ? "error" : "";
}

// A share link longer than this is not offered (no forum takes it, and browsers slow down
// on it): the Markdown is the way to pass such an answer on.
const MOST_LINK = 65536;

function shareLink(kind, text) {
  const link = "#" + kind + "=" + encodeURIComponent(text);
  return link.length <= MOST_LINK ? link : null;
}

function show(kind, text, answer) {
  answered += 1;
  if (answer.error) {
    setStatus("Error: " + answer.error, true);
    $("result").replaceChildren();
    $("chart").replaceChildren();
    $("actions").hidden = true;
  } else {
    setStatus("Answered: " + answer.summary);
    // The library's own HTML: every name in it is escaped text (render/html.py).
    $("result").innerHTML = answer.html;
    $("chart").innerHTML = answer.chart;
    $("markdown").value = answer.markdown;
    const link = shareLink(kind, text);
    $("share").hidden = link === null;
    if (link !== null) $("share").href = link;
    $("actions").hidden = false;
  }
  document.body.dataset.answered = String(answered);
  document.body.dataset.answeredMs = String(Math.round(performance.now()));
}

async function ask(kind, text, keepLink = false) {
  if (kind === "read") $("paste").value = text;
  else $("cmd").value = text;
  if (!keepLink) history.replaceState(null, "", shareLink(kind, text) ?? location.pathname);
  setStatus(mode === "static" && answered === 0 ? "Starting Python in this page…" : "Answering…");
  let answer;
  try {
    answer = await (await backend)(kind, text);
  } catch (error) {
    answer = { error: String(error) };
  }
  show(kind, text, answer);
}

function fromFragment() {
  const hash = location.hash.slice(1);
  for (const kind of ["cmd", "read"]) {
    if (hash.startsWith(kind + "=")) {
      let text;
      try {
        text = decodeURIComponent(hash.slice(kind.length + 1));
      } catch {
        show(kind, "", { error: "the link's question is not URL-encoded text" });
        return;
      }
      ask(kind, text, true);
      return;
    }
  }
}

function formLine() {
  const cell = $("cell");
  if (cell.selectedOptions[0].dataset.family !== undefined) {
    return (cell.value + " " + $("family-options").value).trim();
  }
  let line = `${cell.value} --input ${$("input").value} --hidden ${$("hidden").value}` +
    ` --layers ${$("layers").value}`;
  if ($("bidir").checked) line += " --bidir";
  if (!$("bias").checked) line += " --no-bias";
  if ($("framework").value !== "torch") line += " --framework " + $("framework").value;
  return line;
}

$("paste-form").addEventListener("submit", (event) => {
  event.preventDefault();
  ask("read", $("paste").value);
});
$("paste").addEventListener("keydown", (event) => {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    ask("read", $("paste").value);
  }
});
$("count-form").addEventListener("submit", (event) => {
  event.preventDefault();
  ask("cmd", formLine());
});
$("cmd-form").addEventListener("submit", (event) => {
  event.preventDefault();
  ask("cmd", $("cmd").value.replace(/^\s*paramcount\s+/, ""));
});
$("copy").addEventListener("click", async () => {
  $("markdown").hidden = false;
  $("markdown-label").hidden = false;
  try {
    await navigator.clipboard.writeText($("markdown").value);
    setStatus("Copied the answer as Markdown.");
  } catch {
    $("markdown").select();
    setStatus(document.execCommand("copy") ? "Copied the answer as Markdown."
      : "The answer as Markdown is selected below: copy it with Ctrl+C.");
  }
});
window.addEventListener("hashchange", fromFragment);
fromFragment();
