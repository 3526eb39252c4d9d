import type { Answer } from '../http/openapi-responses.js';
import {
  getAndHead,
  type HostOperation,
  ID_REFUSAL,
  jsonTooLarge,
  notFound,
  operationOf,
  pathItem,
  USER_BODY_REFUSAL,
  USER_REFUSAL,
} from './host-openapi-answers.js';
import { USER_ID_PARAMETER } from './host-openapi-schemas.js';

/** An operation's own words; its tag and the answers it shares come from the collection. */
type OperationWords = Omit<HostOperation, 'tags' | 'answers'>;

/** One path of a member, with its one operation: `done` is its 200; a GET has its HEAD. */
export type MemberPath = {
  readonly description: string;
  readonly operation: OperationWords;
  readonly done: Answer;
} & ({ readonly method: 'post' | 'delete' } | { readonly method: 'get'; readonly headId: string });

/**
 * A user's collection in the host API's document (API keys, webhook endpoints): under
 * /host/v1/users/{userId}/…, POST makes a member (201; 409 past the user's limit) and GET lists
 * them; a member's own paths take its id, which is any text, so an unknown one (404) and a query
 * parameter (400) are their only refusals.
 */
export interface UserCollection {
  readonly tag: string;
  readonly path: string;
  readonly description: string;
  readonly create: OperationWords & {
    readonly requestBody: object;
    readonly created: Answer;
    readonly tooMany: Answer;
    readonly invalid: Answer;
  };
  readonly list: OperationWords & { readonly headId: string; readonly listed: Answer };
  /** The path parameter of a member's id. */
  readonly memberId: { readonly name: string; readonly description: string; readonly example: string };
  /** What a member is called in the 404: "No such …". */
  readonly memberNoun: string;
  readonly unknownMember: string;
  readonly memberPaths: Readonly<Record<string, MemberPath>>;
}

/** The path items of a collection and of its members, in the document's order. */
export function userCollectionPaths(collection: UserCollection): Record<string, object> {
  const tags = [collection.tag];
  const { requestBody, created, tooMany, invalid, ...createWords } = collection.create;
  const create = operationOf({
    ...createWords,
    tags,
    requestBody,
    answers: { '201': created, '400': USER_BODY_REFUSAL, '409': tooMany, '413': jsonTooLarge, '422': invalid },
  });
  const { headId, listed, ...listWords } = collection.list;
  const list = getAndHead({ ...listWords, tags, answers: { '200': listed, '400': USER_REFUSAL } }, headId);
  const memberId = { ...collection.memberId, in: 'path', required: true, schema: { type: 'string' } };
  const unknown = notFound(collection.memberNoun, collection.unknownMember);
  const members = Object.entries(collection.memberPaths).map(([path, member]) => {
    const operation = { ...member.operation, tags, answers: { '200': member.done, '400': ID_REFUSAL, '404': unknown } };
    const operations =
      member.method === 'get' ? getAndHead(operation, member.headId) : { [member.method]: operationOf(operation) };
    return [path, pathItem(member.description, operations, [memberId])] as const;
  });
  return {
    [collection.path]: pathItem(collection.description, { post: create, ...list }, [USER_ID_PARAMETER]),
    ...Object.fromEntries(members),
  };
}
