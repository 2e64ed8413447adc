// The merchant dashboard (docs/dashboard.md): a Preact app bundled by Vite (scripts/lib/dashboard.ts), served by the
// API at /dashboard.
import { render } from 'preact';
import { App } from './app';
import './styles.css';

render(<App />, document.getElementById('app')!);
