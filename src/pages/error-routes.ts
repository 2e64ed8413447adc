// Where every problem's `type` URI ({PUBLIC_BASE_URL}/errors/<code>) leads, no authentication:
//   GET /errors/{code}  what the code means and what to do: a short HTML page for browsers (Accept: text/html),
//                       JSON for everyone else; an unknown code is 404: a page saying so to a browser,
//                       problem+json to everyone else
//   GET /errors         every code, the same two ways
// The text is src/http/error-catalog.ts. Outside the OpenAPI document (documentation, not API resources).
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../platform/deps.js';
import { ERROR_CATALOG, type ErrorInfo } from '../http/error-catalog.js';
import { notFound, titleFor, type ErrorCode } from '../http/problem.js';
import { renderErrorIndex, renderErrorPage, renderUnknownCode } from './error-page.js';
import { PAGE_CSP } from './tracking-page.js';

const entries = Object.entries(ERROR_CATALOG) as [ErrorCode, ErrorInfo][];

/** A browser asking for a page, as GET /docs decides it. */
const wantsHtml = (request: FastifyRequest) => {
  const accept = request.headers.accept ?? '';
  return /text\/html/.test(accept) && !/application\/json/.test(accept);
};

const routes: FastifyPluginAsync<AppDeps> = async (app, { config }) => {
  const describe = (code: ErrorCode, info: ErrorInfo) => ({
    type: `${config.baseUrl}/errors/${code}`,
    code,
    status: info.status,
    title: titleFor(info.status),
    meaning: info.meaning,
    what_to_do: info.todo,
    example_detail: info.example,
  });
  const common = (reply: FastifyReply) =>
    reply
      .header('vary', 'Accept')
      .header('cache-control', 'public, max-age=3600')
      .header('content-security-policy', PAGE_CSP);

  app.get('/errors', { config: { auth: 'none' }, schema: { hide: true } }, async (request, reply) => {
    common(reply);
    if (wantsHtml(request)) return reply.type('text/html; charset=utf-8').send(renderErrorIndex(entries));
    return { data: entries.map(([code, info]) => describe(code, info)) };
  });

  app.get(
    '/errors/:code',
    { config: { auth: 'none' }, schema: { hide: true } },
    async (request: FastifyRequest<{ Params: { code: string } }>, reply) => {
      const code = request.params.code;
      const info = Object.hasOwn(ERROR_CATALOG, code) ? ERROR_CATALOG[code as ErrorCode] : undefined;
      if (!info) {
        if (!wantsHtml(request)) throw notFound('Error code');
        return reply
          .code(404)
          .header('vary', 'Accept')
          .header('content-security-policy', PAGE_CSP)
          .type('text/html; charset=utf-8')
          .send(renderUnknownCode(code));
      }
      common(reply);
      if (wantsHtml(request)) return reply.type('text/html; charset=utf-8').send(renderErrorPage(code, info));
      return describe(code as ErrorCode, info);
    },
  );
};
export default routes;
