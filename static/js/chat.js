// The chat: send a question, stream the answer (server-sent events over fetch),
// then swap in the server-rendered message with its source cards and feedback.
(function () {
  const form = document.getElementById("chat-form");
  if (!form) return;
  const input = document.getElementById("chat-input");
  const log = document.getElementById("chat-log");
  const errorBox = document.getElementById("chat-error");
  const send = document.getElementById("chat-send");
  const csrf = form.querySelector("input[name=csrfmiddlewaretoken]").value;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text) e.textContent = text;
    return e;
  }

  async function ensureConversation() {
    if (form.dataset.streamUrl) return;
    const r = await fetch(form.dataset.newUrl, {method: "POST", headers: {"X-CSRFToken": csrf, "Accept": "application/json"}});
    if (!r.ok) throw new Error("Kunde inte starta en ny konversation.");
    const data = await r.json();
    form.dataset.streamUrl = data.stream_url;
    form.dataset.messageBase = data.message_base;
    history.replaceState(null, "", data.url);
    return data.url;
  }

  // A conversation started on this page joins the sidebar list, titled by its first question.
  function listConversation(url, title) {
    const list = document.querySelector(".conversation-list");
    if (!list) return;
    list.querySelectorAll("li.current").forEach((li) => li.classList.remove("current"));
    list.querySelectorAll("li.muted").forEach((li) => li.remove());
    const item = el("li", "current");
    const link = el("a", "", title.length > 80 ? title.slice(0, 80) + "…" : title);
    link.href = url;
    item.appendChild(link);
    list.prepend(item);
  }

  function parseEvents(buffer, onEvent) {
    const blocks = buffer.split("\n\n");
    const rest = blocks.pop();
    for (const block of blocks) {
      let name = "message", data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) name = line.slice(7);
        else if (line.startsWith("data: ")) data += line.slice(6);
      }
      try { onEvent(name, JSON.parse(data)); } catch (e) { /* a partial event: ignore */ }
    }
    return rest;
  }

  async function ask(text) {
    const empty = document.getElementById("empty-chat");
    if (empty) empty.remove();
    const userMsg = el("div", "msg msg-user");
    userMsg.appendChild(el("div", "bubble", text));
    log.appendChild(userMsg);
    const answer = el("article", "msg msg-assistant streaming");
    const status = el("p", "muted small status", "Söker i källorna…");
    const body = el("div", "answer streaming-text");
    answer.append(status, body);
    log.appendChild(answer);
    answer.scrollIntoView({block: "end"});

    const newUrl = await ensureConversation();
    if (newUrl) listConversation(newUrl, text);
    const response = await fetch(form.dataset.streamUrl, {
      method: "POST",
      headers: {"X-CSRFToken": csrf, "Content-Type": "application/x-www-form-urlencoded"},
      body: new URLSearchParams({content: text}),
    });
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "", messageId = null;
    while (true) {
      const {value, done} = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, {stream: true});
      buffer = parseEvents(buffer, (name, data) => {
        if (name === "sources") status.textContent = data.length ? `Hittade ${data.length} källor. Skriver svar…` : "Inga källor hittades.";
        else if (name === "token") body.textContent += data;
        else if (name === "notice" || name === "error") answer.insertBefore(el("p", "badge badge-warn", data), body);
        else if (name === "done") messageId = data.message_id;
      });
    }
    if (!messageId) {
      status.textContent = "Något gick fel. Försök igen.";
      return;
    }
    const html = await (await fetch(form.dataset.messageBase + messageId + "/")).text();
    const wrapper = document.createElement("div");
    wrapper.innerHTML = html.trim();
    const rendered = wrapper.firstElementChild;
    answer.replaceWith(rendered);
    if (window.htmx) window.htmx.process(rendered);
    rendered.scrollIntoView({block: "nearest"});
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = input.value.trim();
    errorBox.textContent = "";
    if (!text) { errorBox.textContent = "Skriv en fråga först."; return; }
    input.value = "";
    send.disabled = true;
    try { await ask(text); }
    catch (e) { errorBox.textContent = "Kunde inte skicka frågan. Kontrollera anslutningen och försök igen."; input.value = text; }
    finally { send.disabled = false; input.focus(); }
  });

  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) { event.preventDefault(); form.requestSubmit(); }
  });

  // A [n] in the answer highlights its source card.
  log.addEventListener("click", (event) => {
    const cite = event.target.closest("a.cite");
    if (!cite) return;
    const card = document.querySelector(cite.getAttribute("href"));
    if (card) { const d = card.closest("details"); if (d) d.open = true; card.classList.add("flash"); setTimeout(() => card.classList.remove("flash"), 1500); }
  });
})();
