// The widget's styles, adopted by its shadow root (or a <style> where constructable sheets are missing).

export const CSS = `
:host{display:block;font:inherit;color:inherit;--dw-accent:#0b5cad;--dw-accent-text:#fff;--dw-error:#a61b1b;--dw-border:#8a8f98;--dw-radius:.5rem}
:host([hidden]){display:none}
*{box-sizing:border-box}
.w{max-width:32rem}
h2{font-size:1.15em;margin:0 0 .5em}
h2:focus,legend:focus{outline:none}
fieldset{border:1px solid var(--dw-border);border-radius:var(--dw-radius);margin:0 0 1em;padding:.5em 1em 1em}
legend{font-weight:600;padding:0 .25em}
label{display:block;margin:.5em 0 .15em;font-weight:500}
input{font:inherit;width:100%;padding:.5em;border:1px solid var(--dw-border);border-radius:.3em;background:transparent;color:inherit}
input[aria-invalid=true]{border:2px solid var(--dw-error)}
.fe{color:var(--dw-error);font-size:.9em;margin:.2em 0 0}
button{font:inherit;font-weight:600;padding:.6em 1.2em;border-radius:.3em;border:2px solid var(--dw-accent);background:var(--dw-accent);color:var(--dw-accent-text);cursor:pointer}
button.s{background:transparent;color:var(--dw-accent)}
button[aria-disabled=true]{opacity:.6;cursor:progress}
:focus-visible{outline:3px solid var(--dw-accent);outline-offset:2px}
.q{display:flex;flex-wrap:wrap;align-items:center;gap:.25em .75em;border:1px solid var(--dw-border);border-radius:var(--dw-radius);padding:.6em .8em;margin:.5em 0;cursor:pointer;font-weight:400}
.q:has(input:checked){border:2px solid var(--dw-accent)}
.q input{width:auto;margin:0;flex:none}
.q img{width:2em;height:2em;object-fit:contain;flex:none}
.q .n{flex:1 1 9em;min-width:0;overflow-wrap:anywhere}.q .f{font-weight:700;white-space:nowrap;margin-left:auto}
.q small{display:block;opacity:.8}
.st{min-height:1.5em;margin:.5em 0}
.er:empty{display:none}
.er{color:var(--dw-error);border-left:4px solid var(--dw-error);padding:.4em .8em;margin:.5em 0}
.er button{display:block;margin-top:.4em}
dl{margin:0 0 1em}dt{font-size:.9em;opacity:.8}dd{margin:0 0 .6em;font-weight:600}
.pin{font-size:1.4em;letter-spacing:.15em}
.tm{margin:0 0 .75em;font-size:.9em}
.tb{display:inline-block;padding:.1em .5em;border:2px solid currentColor;border-radius:.3em;letter-spacing:.08em;background:#fff3c4;color:#5c4400}
.row{display:flex;gap:.75em;flex-wrap:wrap;align-items:center}
`;
