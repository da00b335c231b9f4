import { type TSchema, Type } from '@sinclair/typebox';

/** docs/errors.md. */
export const ErrorDetailSchema = Type.Object({
  value: Type.Optional(Type.Unknown()),
  msg: Type.String(),
  param: Type.String(),
  location: Type.String(),
});

export const ErrorBodySchema = Type.Object(
  {
    code: Type.String(),
    message: Type.String(),
    details: Type.Optional(Type.Array(ErrorDetailSchema)),
    error: Type.Optional(Type.String()),
    error_description: Type.Optional(Type.String()),
  },
  { $id: 'ErrorBody' },
);

/**
 * The error body of wallet-facing endpoints, as the document describes it: the same fields, with
 * the OAuth ones always present (docs/errors.md, RFC 6749 §5.2). Documentation only: those routes
 * serialise with ErrorBodySchema.
 */
export const OAuthErrorBodySchema = Type.Object(
  {
    ...ErrorBodySchema.properties,
    error: Type.String({ description: 'The OAuth error value (docs/errors.md).' }),
    error_description: Type.String({ description: 'Printable ASCII without `"` and `\\`.' }),
  },
  { $id: 'OAuthErrorBody' },
);

/** docs/decisions.md "Pagination": `limit` and `cursor` of every list operation. */
export const PageQuerySchema = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
};

/** docs/decisions.md "Pagination": the query of a list that takes nothing but `limit` and `cursor`. */
export const PageQuery = Type.Object({ ...PageQuerySchema }, { additionalProperties: false });

/** docs/decisions.md "Pagination": a page of `item`. */
export function PageSchema<T extends TSchema>(item: T) {
  return Type.Object({
    data: Type.Array(item),
    nextCursor: Type.Optional(
      Type.String({ description: 'Present only on a full page (as many items as limit): pass it as cursor for the next page. A shorter page is the last.' }),
    ),
  });
}

export const errorResponses = {
  400: ErrorBodySchema,
  401: Type.Union([ErrorBodySchema, Type.String()]),
  403: ErrorBodySchema,
  404: ErrorBodySchema,
  409: ErrorBodySchema,
};

/** An empty 204 answer. */
export const NoContent = Type.Null({ description: 'No content' });
