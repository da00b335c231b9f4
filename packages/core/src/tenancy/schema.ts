import { Type } from '@sinclair/typebox';
import { ROLES } from './permissions.ts';

/** docs/limits.md, Admin clients: the create body; `name` is the role when left out. */
export const AdminClientBody = Type.Object(
  {
    role: Type.Union(
      ROLES.map((role) => Type.Literal(role)),
      { errorMessage: `One of ${ROLES.join(', ')}` },
    ),
    name: Type.Optional(Type.String({ maxLength: 200, pattern: '\\S', errorMessage: '1 to 200 characters' })),
  },
  { additionalProperties: false },
);
