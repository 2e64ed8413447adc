// Every JSON body is checked before validation for what no field schema can express and nothing
// downstream can store: nesting deeper than MAX_DEPTH, and text Postgres refuses (NUL characters,
// unpaired UTF-16 surrogates), in values and in keys. Such a body is 422 `validation_failed` with a pointer.
import fp from 'fastify-plugin';
import { ApiError, type FieldErrorCode } from '../problem.js';

export const MAX_DEPTH = 32;

const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');
// Node 24 has String.prototype.isWellFormed (ES2024); the project's lib setting is ES2022.
const wellFormed = (text: string) => (text as string & { isWellFormed(): boolean }).isWellFormed();
const storable = (text: string) => wellFormed(text) && !text.includes('\u0000');

/** The first problem in `body`, walked without recursion, or null. */
export function findBodyProblem(body: unknown): { pointer: string; code: FieldErrorCode; detail: string } | null {
  const stack: { value: unknown; pointer: string; depth: number }[] = [{ value: body, pointer: '', depth: 0 }];
  while (stack.length > 0) {
    const { value, pointer, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (!storable(value))
        return { pointer, code: 'invalid_string', detail: 'Text must be valid Unicode without NUL characters.' };
      continue;
    }
    if (!value || typeof value !== 'object') continue;
    if (depth >= MAX_DEPTH)
      return { pointer, code: 'too_deep', detail: `JSON nested deeper than ${MAX_DEPTH} levels is not accepted.` };
    for (const [key, child] of Object.entries(value)) {
      const childPointer = `${pointer}/${escapePointer(key)}`;
      if (!storable(key))
        return {
          pointer: childPointer,
          code: 'invalid_string',
          detail: 'Keys must be valid Unicode without NUL characters.',
        };
      stack.push({ value: child, pointer: childPointer, depth: depth + 1 });
    }
  }
  return null;
}

export default fp(async (app) => {
  app.addHook('preValidation', async (request) => {
    if (request.body === undefined || request.body === null || typeof request.body !== 'object') return;
    const problem = findBodyProblem(request.body);
    if (problem) throw new ApiError(422, 'validation_failed', problem.detail, [problem]);
  });
});
