// The merchant dashboard (docs/dashboard.md): a Preact app bundled by Vite (scripts/lib/dashboard.ts), served by the
// API at /dashboard.
import { render } from 'preact';
import { App } from './app';
import './styles.css';

const root = document.getElementById('app')!;
root.replaceChildren(); // the boot message (index.html) goes: render() diffs against what is there and could keep it
render(<App />, root);
