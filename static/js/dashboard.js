// Draws the dashboard's charts with the vendored Chart.js from the figures the page carries
// in data-chart (no inline script, so a strict Content-Security-Policy holds).
(function () {
  "use strict";
  const root = document.querySelector("[data-dashboard-charts]");
  if (!root || typeof window.Chart === "undefined") return;
  const data = JSON.parse(root.dataset.chart);
  const days = data.daily;
  const labels = days.map((d) => d.date.slice(5));
  const palette = ["#1f5fa8", "#16794c", "#b7791f", "#b42318", "#6b46c1", "#0e7490"];
  const percent = (v) => (v === null ? null : Math.round(v * 1000) / 10);
  const number = (v) => (v === null || v === undefined ? "–" : v.toLocaleString("sv-SE"));

  function stacked(keyed, field) {
    return keyed.map(([key, label], i) => ({
      label, data: days.map((d) => d[field][key]), backgroundColor: palette[i % palette.length], stack: "s",
    }));
  }
  function line(label, values, i, extra) {
    return Object.assign({ label, data: values, borderColor: palette[i % palette.length],
      backgroundColor: palette[i % palette.length], spanGaps: true, tension: 0, pointRadius: 2 }, extra || {});
  }
  const common = (yTitle, suffix) => ({
    responsive: true, maintainAspectRatio: false, animation: false,
    interaction: { mode: "index", intersect: false },
    plugins: { legend: { position: "bottom" },
      tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${number(c.parsed.y)}${suffix || ""}` } } },
    scales: { x: { title: { display: true, text: "Dag" } }, y: { beginAtZero: true, title: { display: true, text: yTitle } } },
  });

  const counts = (yTitle) => {
    const options = common(yTitle);
    options.scales.x.stacked = true;
    options.scales.y.stacked = true;
    options.scales.y.ticks = { precision: 0 };  // whole questions
    return options;
  };

  const charts = {
    intents: () => ({ type: "bar", data: { labels, datasets: stacked(data.intents, "by_intent") },
      options: counts("Frågor") }),
    modes: () => ({ type: "bar", data: { labels, datasets: stacked(data.modes, "by_answer_mode") },
      options: counts("Svar") }),
    latency: () => ({ type: "line", data: { labels, datasets: [
      line("Sökning p50", days.map((d) => d.retrieval_ms.p50), 0),
      line("Sökning p95", days.map((d) => d.retrieval_ms.p95), 0, { borderDash: [6, 4] }),
      line("Förberedelse p50", days.map((d) => d.total_ms.p50), 1),
      line("Förberedelse p95", days.map((d) => d.total_ms.p95), 1, { borderDash: [6, 4] }),
    ] }, options: common("Millisekunder", " ms") }),
    rates: () => ({ type: "line", data: { labels, datasets: [
      line("Hittade inget", days.map((d) => percent(d.zero_match_rate)), 3),
      line("Nedsatt läge", days.map((d) => percent(d.degraded_rate)), 2),
      line("Från cachen", days.map((d) => percent(d.cache_hit_rate)), 1),
    ] }, options: common("Procent", " %") }),
    sources: () => {
      const options = common("Källor per fråga");
      options.scales.tokens = { position: "right", beginAtZero: true, grid: { drawOnChartArea: false },
        title: { display: true, text: "Kontexttoken" } };
      return { type: "line", data: { labels, datasets: [
        line("Hämtade källor", days.map((d) => d.sources_considered_avg), 0),
        line("Visade källor", days.map((d) => d.sources_included_avg), 1),
        line("Kontexttoken", days.map((d) => d.context_tokens_avg), 4, { yAxisID: "tokens", borderDash: [3, 3] }),
      ] }, options };
    },
  };

  root.querySelectorAll("canvas[data-chart-kind]").forEach((canvas) => {
    const build = charts[canvas.dataset.chartKind];
    if (build) new window.Chart(canvas, build());
  });
  root.dataset.chartsReady = "true";
})();
