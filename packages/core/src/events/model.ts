/** One analytic event (docs/decisions.md "Analytic events"). */
export interface AnalyticEvent {
  id: string;
  /** `<PREFIX>_START`, `<PREFIX>_SUCCESS` or `<PREFIX>_FAIL`. */
  type: string;
  category: string;
  timestamp: string;
  tenantId: string;
  requestId: string;
  requestIp: string;
  clientId?: string;
  userAgent?: string;
  data?: Record<string, unknown>;
}

/** docs/decisions.md "Analytic events": filters of `GET /v1/events`. Lists are OR-ed within, AND-ed across. */
export interface EventFilter {
  ids?: string[];
  requestIds?: string[];
  categories?: string[];
  types?: string[];
  /** Inclusive ISO 8601 bounds. */
  dateFrom?: string;
  dateTo?: string;
}
