// mwz view: the sessions of one or more runs, filtered, searched and read. Plain DOM, no framework, no
// network. Every string of the data reaches the page as a text node (never as markup).
"use strict";
(function () {
  const started = performance.now();
  const DATA = JSON.parse(document.getElementById("data").textContent);
  const PAGE = 200; // rows added at a time: a table of 8000 rows is slow to lay out and nobody reads it all
  const state = { run: 0, other: -1, domain: "", outcome: "", end: "", giveup: "", side: "", search: "", open: null, shown: PAGE };

  // -- text as it is, made visible: control characters and direction overrides shown, never obeyed --
  const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
  function visible(text) {
    const parts = [];
    let last = 0;
    String(text).replace(HIDDEN, function (ch, at) {
      if (at > last) parts.push(document.createTextNode(String(text).slice(last, at)));
      const code = ch.charCodeAt(0);
      const mark = code < 0x20 ? String.fromCharCode(0x2400 + code) : "U+" + code.toString(16).toUpperCase().padStart(4, "0");
      parts.push(el("span", { class: "ctrl", title: "control character" }, mark));
      last = at + 1;
      return ch;
    });
    if (last < String(text).length) parts.push(document.createTextNode(String(text).slice(last)));
    return parts;
  }
  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attributes || {})) {
      if (value !== null && value !== undefined && value !== false) node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }
  function txt(text) { return visible(text); }
  function number(value, digits) { return value === null || value === undefined ? "n/a" : Number(value).toFixed(digits); }
  function flag(value) {
    if (value === null || value === undefined) return el("span", { class: "na" }, "n/a");
    return value ? el("span", { class: "yes" }, "yes") : el("span", { class: "no" }, "no");
  }
  // a session's place: its goal and trial (a run of one trial per goal pairs with trial 0 of another)
  function keyOf(s) { return s.goal + "~" + (s.trial === null || s.trial === undefined ? 0 : s.trial); }
  function reasonOf(domain, givenUp) { return domain + ": " + givenUp.split(":")[0]; }
  function grouped(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ","); }
  // tokens by side ({"system": [prompt, completion], ...}) as one line ("" when none was reported)
  function tokensText(tokens) {
    return Object.entries(tokens || {}).map(function (e) { return e[0] + " " + grouped(e[1][0]) + " prompt + " + grouped(e[1][1]) + " completion"; }).join("; ");
  }
  function countsText(counts, sign) { return Object.entries(counts || {}).map(function (e) { return e[0] + sign + e[1]; }).join(", "); }

  // -- the runs' figures and signatures --
  function figures() {
    const box = document.getElementById("figures");
    const runs = DATA.runs;
    const head = el("tr", {}, el("th", {}, "figure"), runs.map(function (r) { return el("th", {}, txt(r.name), el("br"), el("span", { class: "ci" }, txt(r.simulator + " \u2192 " + r.system))); }));
    const rows = [];
    // every run's figures by label (a run of one trial has no pass^k; a run may lack a figure)
    const labels = [];
    runs.forEach(function (r) { r.figures.forEach(function (f) { if (!labels.includes(f[0])) labels.push(f[0]); }); });
    labels.forEach(function (label) {
      rows.push(el("tr", {}, el("th", {}, label), runs.map(function (r) {
        const f = r.figures.find(function (g) { return g[0] === label; }) || [label, null, null];
        const digits = label.startsWith("Turns") ? 2 : 1;
        return el("td", { class: "num" }, number(f[1], digits), f[2] ? el("span", { class: "ci" }, " [" + number(f[2][0], digits) + ", " + number(f[2][1], digits) + "]") : null);
      })));
    });
    const lists = [
      ["Inform/Success by domain", function (r) { return Object.entries(r.by_domain).filter(function (e) { return e[0] !== "total"; }).map(function (e) { return e[0] + " " + number(e[1][0], 1) + "/" + number(e[1][1], 1); }).join(", "); }],
      ["End reasons", function (r) { return Object.entries(r.end_reasons).map(function (e) { return e[0] + " " + e[1]; }).join(", "); }],
      ["Gave up", function (r) { return Object.entries(r.give_ups).map(function (e) { return e[0] + " \u00d7 " + e[1]; }).join(", ") || "none"; }],
      ["Sessions", function (r) { return String(r.sessions.length); }],
      ["Trials", function (r) { return r.trials ? r.trials.per_goal + " per goal, " + r.trials.goals + " goals" : "1 per goal"; }],
    ];
    // an agent's traces and tokens: rows only where some run has them
    if (runs.some(function (r) { return r.traces || Object.keys(r.tokens || {}).length; })) lists.push(
      ["Tokens", function (r) { return tokensText(r.tokens) || "none reported"; }],
      ["Tool calls", function (r) { return r.traces ? grouped(r.traces.calls) + " in " + grouped(r.traces.turns) + " traced turns" + (r.traces.calls ? ": " + countsText(r.traces.by_name, " ") : "") : "no traces"; }],
      ["Trace warnings", function (r) {
        if (!r.traces) return "no traces";
        const said = Object.entries(r.traces.warnings).map(function (e) { return e[0] + " \u00d7 " + e[1]; });
        Object.entries(r.traces.finish).forEach(function (e) { said.push("finish " + e[0] + " \u00d7 " + e[1]); });
        if (r.traces.cut) said.push(r.traces.cut + " traces cut");
        return said.join(", ") || "none";
      }],
    );
    for (const [label, show] of lists) rows.push(el("tr", {}, el("th", {}, label), runs.map(function (r) { return el("td", {}, txt(show(r))); })));
    rows.push(el("tr", {}, el("th", {}, "Warnings"), runs.map(function (r) {
      return el("td", { class: "warn" }, r.warnings.length ? r.warnings.map(function (w) { return el("div", {}, txt(w)); }) : "none");
    })));
    box.append(el("h2", {}, "Figures"), el("table", {}, el("colgroup", {}, el("col", { style: "width: 180px" })), el("thead", {}, head), el("tbody", {}, rows)));
    const over = runs.find(function (r) { return r.trials; });
    if (over) box.append(el("p", { class: "ci" }, txt(over.trials.definition)));
    (DATA.robustness || []).forEach(function (g) { box.append(robustness(g)); });
    box.append(el("h2", {}, "Signatures"), ...runs.map(function (r) { return el("div", {}, el("span", { class: "label" }, txt(r.name + ":")), el("code", { class: "signature" }, txt(r.signature))); }));
    (DATA.robustness || []).forEach(function (g) {
      box.append(el("div", {}, el("span", { class: "label" }, txt(DATA.runs[g.runs[g.default]].name + " with its profiles:")), el("code", { class: "signature" }, txt(g.signature))));
    });
  }

  // -- a run with profiles: the worst user's and the mean Success, and which user broke which sessions --
  function signed(value, digits) { return value === null || value === undefined ? "n/a" : (value >= 0 ? "+" : "") + Number(value).toFixed(digits); }
  function robustness(g) {
    const f = g.figures, base = g.runs[g.default];
    const figure = function (label, x) {
      const a = x.against_default;
      return el("tr", {}, el("th", {}, label),
        el("td", { class: "num" }, number(x.value, 1), x.ci95 ? el("span", { class: "ci" }, " [" + number(x.ci95[0], 1) + ", " + number(x.ci95[1], 1) + "]") : null),
        el("td", { class: "num" }, signed(a.difference, 1), a.ci95 ? el("span", { class: "ci" }, " [" + signed(a.ci95[0], 1) + ", " + signed(a.ci95[1], 1) + "]") : null,
          a.p_value === undefined ? null : el("span", { class: "ci" }, " p = " + number(a.p_value, 3))));
    };
    const users = Object.keys(g.runs);
    const worst = f.worst.users.length === users.length ? "every user ties" : f.worst.users.join(", ") +
      (f.worst_share ? " (the worst in " + Math.round(100 * f.worst_share[f.worst.users[0]]) + "% of resamples)" : "");
    const box = el("div", { class: "robustness" },
      el("h2", {}, txt("Robustness: " + DATA.runs[base].name + " and its profiles")),
      el("table", {}, el("colgroup", {}, el("col", { style: "width: 180px" })),
        el("thead", {}, el("tr", {}, el("th", {}, "over " + users.length + " users"), el("th", {}, "Success [95% CI]"), el("th", {}, "vs " + g.default + " [95% CI]"))),
        el("tbody", {}, figure("Worst user", f.worst), figure("Mean of users", f.mean),
          el("tr", {}, el("th", {}, "The worst"), el("td", { colspan: "2" }, txt(worst))),
          el("tr", {}, el("th", {}, "Success per user"), el("td", { colspan: "2" }, txt(users.map(function (u) { return u + " " + number(f.success[u], 1); }).join(", ")))))),
      el("p", { class: "ci" }, txt(f.definition + "; " + f.goals + " goals, " + f.sessions + " sessions per user, paired by " + f.paired_by)),
      el("h3", {}, txt("Which user broke it: sessions solved with the " + g.default + " user and failed with another")));
    const list = el("ul", { class: "broken" });
    for (const [user, b] of Object.entries(g.broken)) {
      const other = b.fixed ? "; " + b.fixed + " the other way" : "";
      const head = b.broken
        ? el("button", { type: "button", class: "link", "data-user": user }, txt(user + ": " + b.broken + " of " + b.paired + " sessions" + other))
        : txt(user + ": none of " + b.paired + " sessions" + other);
      if (b.broken) head.addEventListener("click", function () { showBroken(g.runs[user], base, null); });
      const ends = Object.entries(b.ends).map(function (e) { return e[0] + " " + e[1]; }).join(", ");
      list.append(el("li", {}, head, ends ? el("span", { class: "ci" }, txt(" (ended: " + ends + ")")) : null,
        b.reasons.length ? el("ul", {}, b.reasons.map(function (r) {
          const items = r.items.map(function (i) { return i[0] + " " + i[1]; }).join(", ");
          return el("li", {}, el("b", {}, String(r.sessions)), " ", txt(r.reason + (items ? " (" + items + ")" : "")), " ",
            r.keys.slice(0, 5).map(function (key) {
              const open = el("button", { type: "button", class: "link key" }, txt(key.replace(/~0$/, "")));
              open.addEventListener("click", function () { showBroken(g.runs[user], base, key); });
              return open;
            }), r.keys.length > 5 ? el("span", { class: "ci" }, " +" + (r.sessions - 5) + " more") : null);
        }), b.more_reasons ? el("li", { class: "ci" }, b.more_reasons + " more reasons") : null) : null));
    }
    box.append(list);
    return box;
  }
  // the sessions a profile broke: that profile's run, the default user's beside it, Success failing here and holding there
  function showBroken(run, other, key) {
    Object.assign(state, { run: run, other: other, domain: "", outcome: "worse", end: "", giveup: "", side: "", search: "", shown: PAGE });
    syncFilters();
    update();
    if (key) openSession(key);
    document.getElementById(key ? "session" : "browse").scrollIntoView();
  }

  // -- the filters --
  function options(select, pairs) {
    select.replaceChildren(...pairs.map(function (p) { return el("option", { value: p[0] }, txt(p[1])); }));
  }
  function domainsOf(s) { return Object.keys(s.domains); }
  const SELECTS = [["f-run", "run"], ["f-other", "other"], ["f-domain", "domain"], ["f-outcome", "outcome"], ["f-end", "end"], ["f-giveup", "giveup"], ["f-side", "side"]];
  function filters() {
    const runs = DATA.runs;
    options(document.getElementById("f-run"), runs.map(function (r, i) { return [String(i), r.name]; }));
    options(document.getElementById("f-other"), [["-1", "nothing"]].concat(runs.map(function (r, i) { return [String(i), r.name]; })));
    document.getElementById("f-other").parentNode.hidden = runs.length < 2;
    document.getElementById("f-run").parentNode.hidden = runs.length < 2;
    const domains = new Set(), ends = new Set(), giveups = new Set();
    for (const r of runs) for (const s of r.sessions) {
      domainsOf(s).forEach(function (d) { domains.add(d); });
      ends.add(s.end);
      for (const [d, o] of Object.entries(s.domains)) if (o.given_up) giveups.add(reasonOf(d, o.given_up));
    }
    options(document.getElementById("f-domain"), [["", "any"]].concat([...domains].sort().map(function (d) { return [d, d]; })));
    options(document.getElementById("f-outcome"), [
      ["", "any"], ["success-no", "Success fails"], ["success-yes", "Success holds"], ["inform-no", "Inform fails"],
      ["inform-yes", "Inform holds"], ["complete-no", "the simulator lacked something"], ["complete-yes", "the simulator was satisfied"],
      ["differs", "Success differs beside"], ["worse", "Success fails, holds beside"], ["better", "Success holds, fails beside"],
    ]);
    options(document.getElementById("f-end"), [["", "any"]].concat([...ends].sort().map(function (e) { return [e, e]; })));
    options(document.getElementById("f-giveup"), [["", "any"], ["*", "any give-up"]].concat([...giveups].sort().map(function (g) { return [g, g]; })));
    options(document.getElementById("f-side"), [["", "any"], ["system", "system's side"], ["simulator", "simulator's side"], ["none", "no failure"]]);
    for (const [id, key] of SELECTS) {
      const select = document.getElementById(id);
      select.value = String(state[key]);
      select.addEventListener("change", function () {
        state[key] = key === "run" || key === "other" ? Number(select.value) : select.value;
        state.shown = PAGE;
        update();
      });
    }
    const search = document.getElementById("f-search");
    search.value = state.search;
    let timer = null;
    search.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () { state.search = search.value; state.shown = PAGE; update(); }, 120);
    });
    document.getElementById("more").addEventListener("click", function () { state.shown += PAGE; table(); });
  }

  function syncFilters() {
    for (const [id, key] of SELECTS) document.getElementById(id).value = String(state[key]);
    document.getElementById("f-search").value = state.search;
  }

  const haystacks = new WeakMap();
  function haystack(s) {
    let found = haystacks.get(s);
    if (found === undefined) {
      const goal = DATA.goals[s.goal] || { messages: [] };
      found = [s.id, s.end, s.detail, goal.messages.join(" "), s.transcript.map(function (t) {
        const calls = t[0] === "s" && t[7] && t[7].calls ? t[7].calls.map(function (c) { return c[0] + " " + c[1] + " " + c[2]; }).join(" ") : "";
        return t[1] + " " + (t[0] === "s" && t[2] ? t[2] : "") + " " + calls;
      }).join(" ")].join("\n").toLowerCase();
      haystacks.set(s, found);
    }
    return found;
  }
  function outcomeHolds(s, outcome, domain, beside) {
    if (!outcome) return true;
    if (outcome === "differs") {
      const b = beside.get(keyOf(s));
      return b !== undefined && b.success !== s.success;
    }
    if (outcome === "worse" || outcome === "better") { // Success fails here and holds beside (or the other way)
      const b = beside.get(keyOf(s));
      if (b === undefined || b.success === null || s.success === null) return false;
      return outcome === "worse" ? !(s.success > 0) && b.success > 0 : s.success > 0 && !(b.success > 0);
    }
    const [what, wanted] = outcome.split("-");
    const want = wanted === "yes";
    if (domain) {
      const o = s.domains[domain];
      if (what === "complete") return !(o.lacked || o.given_up) === want;
      return o[what] === want;
    }
    if (s[what] === null || s[what] === undefined) return false;
    return Boolean(s[what]) === want;
  }
  function besideIndex() {
    const index = new Map();
    const other = DATA.runs[state.other];
    if (other && state.other !== state.run) for (const s of other.sessions) index.set(keyOf(s), s);
    return index;
  }
  function matching() {
    const run = DATA.runs[state.run];
    const words = state.search.toLowerCase().split(/\s+/).filter(Boolean);
    const beside = besideIndex();
    return run.sessions.filter(function (s) {
      if (state.domain && !(state.domain in s.domains)) return false;
      if (!outcomeHolds(s, state.outcome, state.domain, beside)) return false;
      if (state.end && s.end !== state.end) return false;
      if (state.giveup) {
        const reasons = Object.entries(s.domains).filter(function (e) { return e[1].given_up; }).map(function (e) { return reasonOf(e[0], e[1].given_up); });
        if (state.giveup === "*" ? reasons.length === 0 : !reasons.includes(state.giveup)) return false;
      }
      if (state.side === "none" ? s.sides.length > 0 : state.side && !s.sides.includes(state.side)) return false;
      if (words.length) { const text = haystack(s); if (!words.every(function (w) { return text.includes(w); })) return false; }
      return true;
    });
  }

  // -- the table of sessions --
  function hasTrials() { return DATA.runs.some(function (r) { return r.sessions.some(function (s) { return s.trial !== null && s.trial !== undefined; }); }); }
  let rows = [];
  function table() {
    const trials = hasTrials();
    const head = document.querySelector("#sessions thead");
    const columns = [["Dialogue", "14%"]].concat(trials ? [["Trial", "6%"]] : [], [["Domains", "24%"], ["Inform", "7%"], ["Success", "7%"], ["Complete", "8%"], ["Turns", "6%"], ["End", "13%"], ["Side", "10%"], ["Gave up", trials ? "15%" : "21%"]]);
    head.replaceChildren(el("tr", {}, columns.map(function (c) { return el("th", { style: "width: " + c[1] }, c[0]); })));
    const body = document.querySelector("#sessions tbody");
    const shown = rows.slice(0, state.shown);
    body.replaceChildren(...shown.map(function (s) {
      const domains = Object.entries(s.domains).map(function (e) {
        const ok = e[1].success !== false && e[1].inform !== false;
        return el("span", { class: ok ? "yes" : "no", title: "mwzeval: Inform " + e[1].inform + ", Success " + e[1].success }, txt(e[0] + (ok ? "\u2713 " : "\u2717 ")));
      });
      const gaveUp = Object.entries(s.domains).filter(function (e) { return e[1].given_up; }).map(function (e) { return reasonOf(e[0], e[1].given_up); }).join("; ");
      const row = el("tr", { tabindex: "0", "data-key": keyOf(s), class: state.open === keyOf(s) ? "open" : null },
        el("td", { title: s.id }, txt(s.id)), trials ? el("td", {}, s.trial === null ? "" : String(s.trial)) : null,
        el("td", {}, domains), el("td", {}, flag(s.inform === null ? null : s.inform > 0)), el("td", {}, flag(s.success === null ? null : s.success > 0)),
        el("td", {}, flag(s.complete === null ? null : s.complete > 0)), el("td", {}, String(s.turns)),
        el("td", { title: s.detail || s.end }, txt(s.end)), el("td", {}, s.sides.join(", ") || "\u2014"), el("td", { title: gaveUp }, txt(gaveUp)));
      row.addEventListener("click", function () { openSession(keyOf(s)); });
      row.addEventListener("keydown", function (event) { if (event.key === "Enter") openSession(keyOf(s)); });
      return row;
    }));
    const total = DATA.runs[state.run].sessions.length;
    document.getElementById("count").textContent = rows.length + " of " + total + " sessions match" + (rows.length > shown.length ? "; the first " + shown.length + " shown" : "");
    const more = document.getElementById("more");
    more.hidden = rows.length <= shown.length;
    more.textContent = "Show " + Math.min(PAGE, rows.length - shown.length) + " more";
  }

  // -- a session: goal, verdicts, and the transcript of each run beside --
  function acts(list, label) {
    if (!list || !list.length) return null;
    return el("div", { class: "acts" }, el("span", { class: "label" }, label + " "), list.map(function (a) { return el("span", { class: "act" }, txt(a)); }));
  }
  function changes(list) {
    if (!list || !list.length) return null;
    return el("div", { class: "state" }, el("span", { class: "label" }, "state "), list.map(function (c) {
      const [domain, slot, old, now] = c;
      const shown = old === null ? "+ " + domain + "." + slot + " = " + now : now === null ? "\u2212 " + domain + "." + slot + " (was " + old + ")" : "~ " + domain + "." + slot + ": " + old + " \u2192 " + now;
      return el("span", { class: "act" }, txt(shown));
    }));
  }
  // a system turn's trace: one line saying what it holds (calls and what they got, tokens, finish, warnings),
  // opened for each call's arguments and result
  function trace(t) {
    if (!t) return null;
    const calls = t.calls || [];
    const said = [];
    if (calls.length) {
      said.push(calls.slice(0, 3).map(function (c) { return c[0] + " \u2192 " + c[2]; }).join("; ") + (calls.length > 3 || t.more_calls ? "; +" + (calls.length - 3 + (t.more_calls || 0)) + " more calls" : ""));
    }
    if (t.tokens) said.push(grouped(t.tokens[0]) + " + " + grouped(t.tokens[1]) + " tokens");
    if (t.finish) said.push("finish: " + t.finish);
    if (t.warnings && t.warnings.length) said.push("\u26a0 " + t.warnings.join(", "));
    if (t.note) said.push(t.note);
    const warned = Boolean(t.finish || (t.warnings && t.warnings.length) || t.note);
    return el("details", { class: "trace" + (warned ? " warned" : "") },
      el("summary", {}, el("span", { class: "label" }, (calls.length ? calls.length + (t.more_calls || 0) + " tool call" + (calls.length + (t.more_calls || 0) === 1 ? "" : "s") : "trace") + ": "), txt(said.join(" \u00b7 ") || "nothing recorded")),
      calls.map(function (c) {
        return el("div", { class: "call" }, el("code", {}, txt(c[0] + (c[1] ? " " + c[1] : ""))), " \u2192 ", el("b", {}, txt(c[2])),
          c[4] ? el("span", { class: "label" }, " (written as text)") : null,
          c[3] === null ? null : el("code", { class: "result" }, txt(c[3])));
      }),
      t.more_calls ? el("div", { class: "label" }, t.more_calls + " more calls not shown") : null,
      t.tokens ? el("div", {}, el("span", { class: "label" }, "tokens "), grouped(t.tokens[0]) + " prompt + " + grouped(t.tokens[1]) + " completion") : null,
      t.raw ? el("code", { class: "result" }, txt(t.raw)) : null);
  }
  function transcript(s) {
    return s.transcript.map(function (t) {
      if (t[0] === "u") return el("div", { class: "turn user" }, el("div", { class: "who" }, "user"), el("div", { class: "text" }, txt(t[1])), acts(t[2], "acts"));
      const [, text, delexicalized, sent, read, state, active, traced] = t;
      return el("div", { class: "turn system" }, el("div", { class: "who" }, "system"), el("div", { class: "text" }, txt(text)),
        trace(traced),
        delexicalized === null ? null : el("div", { class: "read" }, el("span", { class: "label" }, "as mwzeval read it: "), txt(delexicalized)),
        acts(sent, "acts"), acts(read, "read by the simulator"), changes(state),
        active && active.length ? el("div", { class: "state" }, el("span", { class: "label" }, "active "), txt(active.join(", "))) : null);
    });
  }
  function verdictTable(s) {
    return el("table", { class: "domains" }, el("thead", {}, el("tr", {}, ["Domain", "Inform", "Success", "The simulator"].map(function (h) { return el("th", {}, h); }))),
      el("tbody", {}, Object.entries(s.domains).map(function (e) {
        const o = e[1];
        const view = o.given_up ? "gave up: " + o.given_up : o.lacked ? "lacked: " + o.lacked : "satisfied";
        return el("tr", {}, el("td", {}, txt(e[0])), el("td", {}, flag(o.inform)), el("td", {}, flag(o.success)), el("td", {}, txt(view)));
      })));
  }
  function column(run, s) {
    if (!s) return el("div", { class: "column" }, el("h3", {}, txt(run.name)), el("p", { class: "missing" }, "no session of this goal and trial"));
    return el("div", { class: "column", "data-run": run.name },
      el("h3", {}, txt(run.name + " (" + run.simulator + " \u2192 " + run.system + ")")),
      el("div", {}, "Inform ", flag(s.inform === null ? null : s.inform > 0), ", Success ", flag(s.success === null ? null : s.success > 0), ", complete ", flag(s.complete === null ? null : s.complete > 0), ", " + s.turns + " turns, ended ", txt(s.end + (s.detail ? " (" + s.detail + ")" : ""))),
      tokensText(s.tokens) ? el("div", { class: "tokens" }, el("span", { class: "label" }, "tokens "), txt(tokensText(s.tokens))) : null,
      verdictTable(s),
      s.verdicts.length ? el("ul", { class: "verdicts" }, s.verdicts.map(function (v) { return el("li", {}, txt(v)); })) : null,
      el("div", { class: "transcript" }, transcript(s)));
  }
  function openSession(key) {
    state.open = key;
    const box = document.getElementById("session");
    const runs = [state.run].concat(state.other >= 0 && state.other !== state.run ? [state.other] : []);
    const found = runs.map(function (i) { return DATA.runs[i].sessions.find(function (s) { return keyOf(s) === key; }); });
    const s = found[0];
    if (!s) {  // a link to a session no run here holds says so, never opens nothing silently
      box.replaceChildren(el("p", { class: "missing" }, txt("No session " + key.replace(/~0$/, "") + " in " + DATA.runs[state.run].name + " (open=GOAL~TRIAL, e.g. open=" + (DATA.runs[state.run].sessions[0] ? keyOf(DATA.runs[state.run].sessions[0]) : "mul2177~0") + ").")));
      box.hidden = false;
      writeHash();
      return;
    }
    const goal = DATA.goals[s.goal] || { domains: [], messages: [] };
    box.replaceChildren(
      el("h2", {}, txt("Session " + s.id + (s.trial === null || s.trial === undefined ? "" : ", trial " + s.trial))),
      el("div", { class: "goal" }, goal.domains.map(function (d) {
        const info = Object.entries(d.info).map(function (e) { return e[0] + "=" + e[1]; }).join(", ");
        const book = Object.entries(d.book).map(function (e) { return e[0] + "=" + e[1]; }).join(", ");
        return el("div", {}, el("b", {}, txt(d.domain) ), ": ", txt(info), book ? txt("; book " + book) : null, d.reqt.length ? txt("; asks " + d.reqt.join(", ")) : null);
      })),
      goal.messages.length ? el("details", {}, el("summary", {}, "the goal's messages"), el("ul", {}, goal.messages.map(function (m) { return el("li", {}, txt(m)); }))) : null,
      el("div", { class: "columns", style: "--columns: " + runs.length }, runs.map(function (i, n) { return column(DATA.runs[i], found[n]); })));
    box.hidden = false;
    document.querySelectorAll("#sessions tbody tr").forEach(function (tr) { tr.classList.toggle("open", tr.getAttribute("data-key") === key); });
    writeHash();
  }

  // -- the state in the address (a filtered view or a session can be linked) --
  function readHash() {
    const params = new URLSearchParams(location.hash.slice(1));
    for (const key of ["domain", "outcome", "end", "giveup", "side", "search"]) if (params.has(key)) state[key] = params.get(key);
    for (const key of ["run", "other"]) if (params.has(key) && DATA.runs[Number(params.get(key))]) state[key] = Number(params.get(key));
    if (params.has("open")) {  // open=GOAL (no trial) is trial 0, the session of a run without trials
      const key = params.get("open");
      state.open = key.indexOf("~") < 0 ? key + "~0" : key;
    }
  }
  function writeHash() {
    const params = new URLSearchParams();
    for (const key of ["run", "other", "domain", "outcome", "end", "giveup", "side", "search", "open"]) {
      const value = state[key];
      if (value !== "" && value !== null && !(key === "run" && value === 0) && !(key === "other" && value === -1)) params.set(key, String(value));
    }
    history.replaceState(null, "", "#" + params.toString());
  }
  function update() {
    rows = matching();
    table();
    writeHash();
  }

  document.getElementById("about").textContent = DATA.runs.length + " run(s), " + DATA.runs.reduce(function (n, r) { return n + r.sessions.length; }, 0) + " sessions; " + DATA.generated;
  if (DATA.runs.length === 0) return;
  if (DATA.runs.length > 1) state.other = 1;
  readHash();
  figures();
  filters();
  rows = matching();
  table();
  if (state.open) openSession(state.open);
  const ready = performance.now();
  document.body.setAttribute("data-ready-ms", ready.toFixed(0));
  document.body.setAttribute("data-script-ms", (ready - started).toFixed(0));
  document.getElementById("timing").textContent = "Shown " + ready.toFixed(0) + " ms after the page began to load (" + (ready - started).toFixed(0) + " ms of it reading and drawing the data).";
})();
