// The HTTP floor of bench:deliveries' list: the least an HTTP API in a process of its own can do for a page, which is
// node:http, the same repository call as GET /v1/deliveries, and JSON.stringify. No authentication, validation, hooks
// or schema: what it adds over the bare SQL is the hop between processes (loopback TCP, HTTP parsing, two wake-ups).
// Started by bench/deliveries.ts with DATABASE_URL and PORT; a request names its tenant in `x-tenant` and its filter
// (bench/deliveries.ts's shapes, dates as ISO strings) as JSON in `x-filter`.
import http from 'node:http';
import { createPool } from '../src/platform/db.js';
import { listDeliveries, type ListFilter } from '../src/deliveries/list-repository.js';
import { onParentExit } from '../src/platform/parent.js';

const pool = createPool(process.env.DATABASE_URL!, 20);
onParentExit(() => process.exit(0));

http
  .createServer((req, res) => {
    const filter = JSON.parse(String(req.headers['x-filter'])) as ListFilter & {
      insertedFrom?: string;
      insertedTo?: string;
    };
    listDeliveries(
      pool,
      { tenantId: String(req.headers['x-tenant']), livemode: true },
      {
        ...filter,
        insertedFrom: filter.insertedFrom ? new Date(filter.insertedFrom) : undefined,
        insertedTo: filter.insertedTo ? new Date(filter.insertedTo) : undefined,
      },
    ).then(
      ({ rows, hasMore }) => {
        const body = JSON.stringify({
          data: rows,
          pagination: { limit: filter.limit, offset: filter.offset, has_more: hasMore },
        });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
      },
      (err: Error) => res.writeHead(500).end(err.message),
    );
  })
  .listen(Number(process.env.PORT), '127.0.0.1');
