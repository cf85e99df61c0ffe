// Terminal text with SGR escape codes (what `tmux capture-pane -e` prints) as HTML spans, for screenshots of the
// terminal UI. Handles what terminal programs emit: reset, bold, dim, italic, underline, inverse, the 16 colours,
// 256-colour and true-colour foregrounds and backgrounds.

// A dark theme's palette (xterm order: black, red, green, yellow, blue, magenta, cyan, white; then bright).
const PALETTE = [
  '#1e1e2e',
  '#f38ba8',
  '#a6e3a1',
  '#f9e2af',
  '#89b4fa',
  '#cba6f7',
  '#94e2d5',
  '#bac2de',
  '#585b70',
  '#f38ba8',
  '#a6e3a1',
  '#f9e2af',
  '#89b4fa',
  '#cba6f7',
  '#94e2d5',
  '#a6adc8',
];
export const FOREGROUND = '#cdd6f4';
export const BACKGROUND = '#11111b';

function color256(n) {
  if (n < 16) return PALETTE[n];
  if (n >= 232) {
    const level = 8 + (n - 232) * 10;
    return `rgb(${level},${level},${level})`;
  }
  const i = n - 16;
  const step = (v) => (v === 0 ? 0 : 55 + v * 40);
  return `rgb(${step(Math.floor(i / 36))},${step(Math.floor(i / 6) % 6)},${step(i % 6)})`;
}

const escapeHtml = (text) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function applyCodes(style, codes) {
  const next = { ...style };
  for (let i = 0; i < codes.length; i++) {
    const c = codes[i];
    if (c === 0)
      Object.assign(next, {
        fg: null,
        bg: null,
        bold: false,
        dim: false,
        italic: false,
        underline: false,
        inverse: false,
      });
    else if (c === 1) next.bold = true;
    else if (c === 2) next.dim = true;
    else if (c === 3) next.italic = true;
    else if (c === 4) next.underline = true;
    else if (c === 7) next.inverse = true;
    else if (c === 22) next.bold = next.dim = false;
    else if (c === 23) next.italic = false;
    else if (c === 24) next.underline = false;
    else if (c === 27) next.inverse = false;
    else if (c >= 30 && c <= 37) next.fg = PALETTE[c - 30];
    else if (c === 39) next.fg = null;
    else if (c >= 40 && c <= 47) next.bg = PALETTE[c - 40];
    else if (c === 49) next.bg = null;
    else if (c >= 90 && c <= 97) next.fg = PALETTE[c - 90 + 8];
    else if (c >= 100 && c <= 107) next.bg = PALETTE[c - 100 + 8];
    else if (c === 38 || c === 48) {
      const key = c === 38 ? 'fg' : 'bg';
      if (codes[i + 1] === 5) {
        next[key] = color256(codes[i + 2]);
        i += 2;
      } else if (codes[i + 1] === 2) {
        next[key] = `rgb(${codes[i + 2]},${codes[i + 3]},${codes[i + 4]})`;
        i += 4;
      }
    }
  }
  return next;
}

function css(style) {
  let fg = style.fg ?? FOREGROUND;
  let bg = style.bg;
  if (style.inverse) [fg, bg] = [bg ?? BACKGROUND, fg];
  const rules = [`color:${fg}`];
  if (bg) rules.push(`background:${bg}`);
  if (style.bold) rules.push('font-weight:bold');
  if (style.dim) rules.push('opacity:0.65');
  if (style.italic) rules.push('font-style:italic');
  if (style.underline) rules.push('text-decoration:underline');
  return rules.join(';');
}

/** The text as HTML: one span per run of equal style; other escape sequences are dropped. */
export function ansiToHtml(text) {
  let style = {};
  let html = '';
  // eslint-disable-next-line no-control-regex -- the escape sequences being converted
  const pattern = /\u001b\[([0-9;]*)([A-Za-z])/g;
  let last = 0;
  const flush = (chunk) => {
    if (chunk) html += `<span style="${css(style)}">${escapeHtml(chunk)}</span>`;
  };
  for (const match of text.matchAll(pattern)) {
    flush(text.slice(last, match.index));
    last = match.index + match[0].length;
    if (match[2] === 'm') style = applyCodes(style, match[1] === '' ? [0] : match[1].split(';').map(Number));
  }
  flush(text.slice(last));
  return html;
}

/** A page showing the terminal: monospace on a dark background, sized to its content. */
export function terminalPage(text, { title = 'terminal' } = {}) {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title><style>
body{margin:0;background:#0b0b12;display:inline-block}
.window{margin:16px;border-radius:10px;background:${BACKGROUND};box-shadow:0 6px 24px rgba(0,0,0,.5);overflow:hidden}
.bar{height:28px;background:#1e1e2e;display:flex;align-items:center;padding:0 12px;gap:8px}
.bar i{width:12px;height:12px;border-radius:50%;display:inline-block}
.bar span{color:#a6adc8;font:13px sans-serif;margin-left:12px}
pre{margin:0;padding:12px 14px;color:${FOREGROUND};
  font:14px/1.35 'DejaVu Sans Mono','Liberation Mono',monospace}
</style></head><body><div class="window"><div class="bar">
<i style="background:#f38ba8"></i><i style="background:#f9e2af"></i><i style="background:#a6e3a1"></i>
<span>${escapeHtml(title)}</span></div><pre>${ansiToHtml(text)}</pre></div></body></html>`;
}
