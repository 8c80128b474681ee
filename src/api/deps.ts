import type { TimelineStore } from '../store/types.ts';
import type { AnalysisPool } from '../analysis/pool.ts';
import type { AnchorStabilityChecker } from '../analysis/anchor-stability-checker.ts';
import type { AccessControl } from '../accounts/access.ts';
import type { Config } from '../config.ts';
import type { SavedRequests } from '../saved-requests/saved-requests.ts';

/** What operations need from the rest of the service. */
export interface OperationDeps {
  store: TimelineStore;
  pool: AnalysisPool;
  anchorStability: AnchorStabilityChecker;
  access: AccessControl;
  savedRequests: SavedRequests;
  config: Pick<Config, 'defaultPageSize' | 'maxPageSize'>;
}
