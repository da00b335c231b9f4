import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';
import type { ErrorDetail } from '@vellum/core';
import { Problems } from '@vellum/core/schemas';
import type { FastifySchemaCompiler } from 'fastify';

const LOCATIONS: Readonly<Record<string, ErrorDetail['location']>> = { body: 'body', querystring: 'query', params: 'params', headers: 'headers' };

/**
 * The one validation path over HTTP (docs/decisions.md "One validation path"): what fits its schema
 * passes on a compiled check; what does not is described by the core's own check, so the answer's
 * details are the same words the core gives an embedder. Query strings, path parameters and headers
 * are text: they are converted to their schema's types (numbers, booleans) first, as TypeBox's
 * Fastify compiler does, and their problems carry their location.
 */
export const validatorCompiler: FastifySchemaCompiler<TSchema> = (route) => {
  const location = LOCATIONS[route.httpPart ?? 'body'] ?? 'body';
  const fits = TypeCompiler.Compile(route.schema);
  return (value) => {
    const input = location === 'body' ? value : Value.Convert(route.schema, value);
    if (fits.Check(input)) return { value: input };
    const problems = new Problems(location);
    problems.checkShape(route.schema, input);
    return { error: problems.error(route.schema) as Error };
  };
};
