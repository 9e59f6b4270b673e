/* Koloda's Mini App: the table as a picture. No library: the page reads its launch
   parameters from Telegram's WebApp script when it is there, else from the URL
   fragment (#tgWebAppData=…), draws the cards as SVG, and follows the table
   through the bot's event stream. */
"use strict";
(function () {
  const SVG = "http://www.w3.org/2000/svg";
  const fragment = new URLSearchParams(location.hash.slice(1));
  const query = new URLSearchParams(location.search);
  const $ = (id) => document.getElementById(id);
  let tg = null, initData = "", token = "", state = null, words = {}, source = null;
  let retry = null, tick = null, sent = false;

  function launch() {
    initData = fragment.get("tgWebAppData") || "";
    const script = window.Telegram && window.Telegram.WebApp;
    if (!initData && script) initData = script.initData || "";
    const signed = new URLSearchParams(initData);
    token = query.get("t") || fragment.get("tgWebAppStartParam") || signed.get("start_param") || "";
    let theme = {};
    try { theme = JSON.parse(fragment.get("tgWebAppThemeParams") || "{}"); } catch (e) { theme = {}; }
    applyTheme(theme || {}, null);
    if (script) hook(); else {
      const tag = document.getElementById("tg-script");
      if (tag) tag.addEventListener("load", hook);
    }
    const four = $("four");
    four.checked = localStorage.getItem("koloda-four") === "1";
    four.addEventListener("change", () => {
      localStorage.setItem("koloda-four", four.checked ? "1" : "0");
      if (state) draw(state);
    });
    load().then(listen).catch(() => listen(true));
  }

  function hook() {  // Telegram's own script is there: its theme, its haptics
    tg = window.Telegram && window.Telegram.WebApp;
    if (!tg) return;
    tg.ready(); tg.expand();
    if (tg.themeParams && tg.themeParams.bg_color) applyTheme(tg.themeParams, tg.colorScheme);
    tg.onEvent("themeChanged", () => applyTheme(tg.themeParams, tg.colorScheme));
  }

  function applyTheme(theme, scheme) {
    const root = document.documentElement;
    const names = { bg_color: "--bg", text_color: "--text", hint_color: "--hint",
      link_color: "--link", button_color: "--button", button_text_color: "--button-text",
      secondary_bg_color: "--secondary-bg" };
    for (const [key, prop] of Object.entries(names)) {
      if (/^#[0-9a-fA-F]{3,8}$/.test(theme[key] || "")) root.style.setProperty(prop, theme[key]);
    }
    let dark = scheme === "dark";
    if (!scheme && theme.bg_color) dark = luminance(theme.bg_color) < 0.4;
    if (!scheme && !theme.bg_color) dark = matchMedia("(prefers-color-scheme: dark)").matches;
    root.classList.toggle("dark", dark);
  }

  function luminance(hex) {
    let h = hex.slice(1);
    if (h.length === 3) h = h.split("").map((c) => c + c).join("");
    const [r, g, b] = [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16) / 255);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  }

  // An API call; answered 429 (too fast), it waits as long as the server asks and tries
  // once more (the refused request changed nothing, so a move is not made twice).
  async function call(url, options) {
    let answer = await fetch(url, options);
    if (answer.status === 429) {
      const wait = Math.min(Number(answer.headers.get("Retry-After")) || 1, 10);
      await new Promise((done) => setTimeout(done, wait * 1000));
      answer = await fetch(url, options);
    }
    return answer;
  }

  async function load() {
    const answer = await call("api/view?t=" + encodeURIComponent(token),
      { headers: { "X-Telegram-Init-Data": initData } });
    const body = await answer.json().catch(() => ({}));
    // too fast still: said, and the stream (which sends the view) is tried as usual
    if (answer.status === 429) { note(body.text || answer.statusText, true); return true; }
    if (!answer.ok) { refuse(body.text || answer.statusText); return false; }
    draw(body);
    return true;
  }

  function refuse(text) {
    $("status").textContent = text;
    $("status").classList.add("refused");
    document.body.dataset.refused = "1";
  }

  function listen(ok) {
    if (!ok) return;
    if (source) source.close();
    source = new EventSource("api/stream?t=" + encodeURIComponent(token) +
      "&auth=" + encodeURIComponent(initData));
    source.addEventListener("view", (event) => {
      $("offline").hidden = true;
      draw(JSON.parse(event.data));
    });
    source.onerror = () => {
      $("offline").textContent = words.offline || "…";
      $("offline").hidden = false;
      if (source.readyState === EventSource.CLOSED) {  // the server said no: try again
        clearTimeout(retry);
        retry = setTimeout(() => load().then(listen).catch(() => listen(true)), 1500);
      }
    };
  }

  async function move(action) {
    if (!state || sent) return;
    sent = true;
    try {
      const answer = await call("api/move", {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Telegram-Init-Data": initData },
        body: JSON.stringify({ t: token, version: state.version, action: action }),
      });
      const body = await answer.json().catch(() => ({}));
      note(body.text || "", body.ok === false);
      if (answer.status === 429) return;  // not made: the text says to wait
      if (!source || source.readyState !== EventSource.OPEN) await load();
    } catch (e) {
      note(words.offline || "…", true);
    } finally {
      sent = false;
    }
  }

  function note(text, refused) {  // a refusal, a hint, or a 📜 Deal record
    const box = $("note");
    box.textContent = text;
    box.hidden = !text;
    if (tg && refused && tg.HapticFeedback) tg.HapticFeedback.notificationOccurred("warning");
  }

  // ---------------------------------------------------------------- drawing

  function draw(view) {
    state = view;
    document.body.dataset.version = String(view.version);  // the version drawn (tests read it)
    words = view.words || words;
    document.documentElement.lang = view.lang || "en";
    $("title").textContent = view.game_name;
    $("four-label").textContent = words["four-colour"];
    $("details-title").textContent = view.game_name;
    $("table").textContent = view.table || "";
    $("hand-title").textContent = words.hand;
    const four = $("four").checked;
    const v = view.view;
    const board = $("board"), hand = $("hand"), moves = $("moves");
    board.replaceChildren(); hand.replaceChildren(); moves.replaceChildren();
    const names = view.names || {};
    const status = $("status");
    status.classList.remove("turn");
    if (view.status !== "running" || !v) {
      status.textContent = words[view.status] || "";
      $("hand-box").hidden = true;
      countdown(null);
      for (const m of view.extras || []) moves.append(actionButton(m, "extra"));
      return;
    }
    const mine = view.seat !== null && v.to_move === view.seat;
    if (view.seat === null) status.textContent = words.spectator;
    else if (mine) { status.textContent = words["your-turn"]; status.classList.add("turn"); }
    else if (v.to_move !== null && v.to_move !== undefined)
      status.textContent = words.wait.replace("{name}", view.seats[v.to_move].name);
    else status.textContent = "";
    countdown(view.deadline);
    drawBoard(board, v, view, names, four);
    const legal = new Set(view.moves.map((m) => m.action));
    $("hand-box").hidden = view.seat === null;
    for (const code of v.hand || []) {
      hand.append(cardNode(code, names, four, legal.has(code) ? () => move(code) : null,
        mine && !legal.has(code)));
    }
    for (const m of view.moves) {
      if (/^[AKQJT2-9][SHDC]$/.test(m.action) && (v.hand || []).includes(m.action)) continue;
      moves.append(actionButton(m, ""));
    }
    for (const m of view.extras || []) moves.append(actionButton(m, "extra"));
  }

  function actionButton(m, kind) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = kind;
    button.textContent = m.label;
    button.setAttribute("aria-label", m.label);
    button.addEventListener("click", () => move(m.action));
    return button;
  }

  function pile(label, codes, names, four) {
    const box = document.createElement("div");
    box.className = "pile";
    for (const code of codes) box.append(cardNode(code, names, four, null, false));
    const who = document.createElement("span");
    who.className = "who";
    who.textContent = label;
    box.append(who);
    return box;
  }

  function group(label, children) {
    const box = document.createElement("div");
    box.className = "group";
    const title = document.createElement("span");
    title.className = "label";
    title.textContent = label;
    const row = document.createElement("div");
    row.className = "row";
    row.append(...children);
    box.append(title, row);
    return box;
  }

  function drawBoard(board, v, view, names, four) {
    const seatName = (s) => (view.seats[s] || {}).name || "?";
    if (v.trick && v.trick.length) {
      board.append(group(words.trick, v.trick.map(([s, c]) => pile(seatName(s), [c], names, four))));
    } else if (v.last_trick && v.last_trick.cards) {
      board.append(group(words["last-trick"],
        v.last_trick.cards.map(([s, c]) => pile(seatName(s), [c], names, four))));
    }
    if (v.trump_card) board.append(pile(words.trumps, [v.trump_card], names, four));
    if (v.discard_top) board.append(pile(words.discard, [v.discard_top], names, four));
    if (v.stock_top) board.append(pile(words.stock.replace("{n}", v.stock), [v.stock_top], names, four));
    else if (typeof v.stock === "number") board.append(pile(words.stock.replace("{n}", v.stock), [], names, four));
    const melds = (v.melds || []).map((m) => (Array.isArray(m) ? m : m.cards || []));
    if (melds.length) {
      board.append(group(words.melds, melds.map((cards) => pile("", cards, names, four))));
    }
    for (const [suit, row] of Object.entries(v.rows || {})) {
      if (row && row.length) board.append(pile("", row, names, four));
    }
    (v.known_cards || []).forEach((known, s) => {
      if (known && known.length && s !== view.seat) board.append(pile(seatName(s), known, names, four));
    });
  }

  function countdown(deadline) {
    clearInterval(tick);
    if (!deadline) return;
    const status = $("status"), base = status.textContent;
    const show = () => {
      const left = Math.max(0, Math.round(deadline - Date.now() / 1000));
      const time = Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0");
      status.textContent = base + " · " + words.timer.replace("{time}", time);
    };
    show();
    tick = setInterval(show, 1000);
  }

  // ---------------------------------------------------------------- cards

  const SUITS = {
    S: "M50 6C64 24 92 40 92 62C92 78 76 86 62 80C58 78 55 75 53 71C54 82 58 90 66 96H34C42 90 46 82 47 71C45 75 42 78 38 80C24 86 8 78 8 62C8 40 36 24 50 6Z",
    H: "M50 94C30 76 6 58 6 34C6 18 18 8 31 8C40 8 47 14 50 22C53 14 60 8 69 8C82 8 94 18 94 34C94 58 70 76 50 94Z",
    D: "M50 4L88 50L50 96L12 50Z",
    C: "M50 8A20 20 0 0 1 66 40A20 20 0 1 1 56 74C57 84 60 90 66 96H34C40 90 43 84 44 74A20 20 0 1 1 34 40A20 20 0 0 1 50 8Z",
  };

  function suitClass(suit, four) {
    if (four) return { S: "ink-black", H: "ink-red", D: "ink-blue", C: "ink-green" }[suit];
    return suit === "H" || suit === "D" ? "ink-red" : "ink-black";
  }

  function el(name, attrs) {
    const node = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    return node;
  }

  function cardSVG(code, name, four) {
    const suit = code[1];
    const rank = name.slice(0, -1);
    const ink = suitClass(suit, four);
    const svg = el("svg", { viewBox: "0 0 64 90", "aria-hidden": "true", focusable: "false" });
    svg.append(el("rect", { class: "face", x: 1, y: 1, width: 62, height: 88, rx: 6 }));
    for (const flip of [false, true]) {
      const corner = el("g", flip ? { transform: "rotate(180 32 45)" } : {});
      const label = el("text", { class: ink + " rank", x: 8, y: 17, "text-anchor": "middle" });
      if (rank.length > 1) {  // "10": squeezed into the corner, as printed cards do
        label.setAttribute("textLength", "12");
        label.setAttribute("lengthAdjust", "spacingAndGlyphs");
      }
      label.textContent = rank;
      const pip = el("g", { transform: "translate(3 21) scale(0.1)" });
      pip.append(el("path", { class: ink, d: SUITS[suit] }));
      corner.append(label, pip);
      svg.append(corner);
    }
    const big = el("g", { transform: "translate(17 26) scale(0.3)" });
    big.append(el("path", { class: ink, d: SUITS[suit] }));
    svg.append(big);
    return svg;
  }

  function cardNode(code, names, four, onPlay, dim) {
    const name = names[code] || code;
    const node = document.createElement(onPlay ? "button" : "span");
    node.className = "card" + (onPlay ? " legal" : "") + (dim ? " dim" : "");
    node.dataset.card = code;
    if (onPlay) {
      node.type = "button";
      node.setAttribute("aria-label", name + " (" + words.play + ")");
      node.addEventListener("click", onPlay);
    } else {
      node.setAttribute("role", "img");
      node.setAttribute("aria-label", name);
    }
    node.append(cardSVG(code, name, four));
    return node;
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", launch);
  else launch();
})();
