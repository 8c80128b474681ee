import type { OperationDeps } from '../deps.ts';
import type { Operation, OperationTable } from '../operation.ts';
import { eventOperations } from './events.ts';
import { timelineOperations } from './timelines.ts';
import { paradoxOperations } from './paradoxes.ts';
import { anchorOperations } from './anchors.ts';
import { tutorialOperations } from './tutorial.ts';
import { accountOperations } from './accounts.ts';
import { consoleOperations } from './console.ts';

/** Every RPC the service implements, by fully qualified name. The faces serve exactly this table. */
export function createOperations(deps: OperationDeps): OperationTable {
  const table: Record<string, Operation> = {
    ...eventOperations(deps),
    ...timelineOperations(deps),
    ...paradoxOperations(deps),
    ...anchorOperations(deps),
    ...tutorialOperations(deps),
    ...accountOperations(deps),
    ...consoleOperations(deps),
  };
  return new Map(Object.entries(table));
}
