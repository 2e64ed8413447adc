// npm run build:dashboard: builds the merchant dashboard (web/dashboard) into .build/dashboard, served by the API at
// /dashboard, and fails when its first page is over the 150 kB gzip budget (scripts/lib/dashboard.ts).
import { buildDashboard } from './lib/dashboard.js';

await buildDashboard();
