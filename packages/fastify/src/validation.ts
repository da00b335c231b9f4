import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox';
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { Problems } from '@vellum/core/schemas';
import type { FastifySchemaCompiler } from 'fastify';

/**
 * The one validation path over HTTP (docs/decisions.md "One validation path"): a body that fits its
 * schema passes on a compiled check; one that does not is described by the core's own check, so the
 * answer's details are the same words the core gives an embedder for the same body. Query strings,
 * path and header values keep TypeBox's compiler, which also converts their text to numbers.
 */
export const validatorCompiler: FastifySchemaCompiler<TSchema> = (route) => {
  if (route.httpPart !== 'body') return TypeBoxValidatorCompiler(route);
  const fits = TypeCompiler.Compile(route.schema);
  return (value) => {
    if (fits.Check(value)) return { value };
    const problems = new Problems();
    problems.checkShape(route.schema, value);
    return { error: problems.error(route.schema) as Error };
  };
};
