// The JavaScript request sample of every merchant operation in the reference (/docs): the call with the typed client
// of clients/typescript (`@delivery-api/client`, docs/client.md), as an OpenAPI `x-codeSamples` entry, which Scalar
// shows beside its own curl and Python samples. Built from the operation's path, parameters and request example.

type Json = Record<string, unknown>;
const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

const indent = (text: string, by: string) => text.replaceAll('\n', `\n${by}`);

/** An example value for a parameter: its own example, else a placeholder saying what goes there. */
function parameterValue(p: Json): unknown {
  const schema = (p.schema ?? {}) as Json;
  if (p.example !== undefined) return p.example;
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if (schema.format === 'uuid') return '3f6c1b9e-8a2d-4c1e-9b7a-2d5e8f1a0c42';
  if (schema.type === 'integer' || schema.type === 'number') return 10;
  return `<${String(p.name)}>`;
}

/** The client call for one operation (`api.POST('/v1/quotes', { body })`), with its key's kind in the setup. */
export function clientSample(method: string, path: string, operation: Json, baseUrl: string): string {
  const parameters = (operation.parameters ?? []) as Json[];
  const params: Record<string, Record<string, unknown>> = {};
  for (const p of parameters) {
    if ((p.in !== 'path' && p.in !== 'query') || (p.in === 'query' && !p.required)) continue;
    (params[p.in as string] ??= {})[p.name as string] = parameterValue(p);
  }
  const media = ((operation.requestBody as Json | undefined)?.content as Json | undefined)?.['application/json'] as
    Json | undefined;
  const options: string[] = [];
  if (Object.keys(params).length) options.push(`params: ${JSON.stringify(params)}`);
  if (media?.example !== undefined) options.push(`body: ${indent(JSON.stringify(media.example, null, 2), '  ')}`);
  const widget = path.startsWith('/v1/widget/');
  const key = widget ? 'DELIVERY_API_PUBLISHABLE_KEY' : 'DELIVERY_API_KEY';
  const call = options.length
    ? `await api.${method.toUpperCase()}('${path}', {\n  ${options.join(',\n  ')},\n});`
    : `await api.${method.toUpperCase()}('${path}');`;
  return [
    "import { createClient } from '@delivery-api/client';",
    '',
    `const api = createClient({ apiKey: process.env.${key}, baseUrl: '${baseUrl}' });`,
    '',
    `const { data, error } = ${call}`,
    'if (error) throw new Error(`${error.error}: ${error.detail}`);',
    'console.log(data);',
  ].join('\n');
}

/** Adds the client sample to every operation whose tags are not in `skipTags` (courier and operator routes). */
export function addCodeSamples(document: Json, baseUrl: string, skipTags: Set<string>): Json {
  for (const [path, item] of Object.entries((document.paths ?? {}) as Record<string, Record<string, Json>>)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method) || ((operation.tags ?? []) as string[]).some((t) => skipTags.has(t))) continue;
      operation['x-codeSamples'] = [
        {
          lang: 'javascript',
          label: 'JavaScript (@delivery-api/client)',
          source: clientSample(method, path, operation, baseUrl),
        },
      ];
    }
  }
  return document;
}
