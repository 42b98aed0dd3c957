/**
 * Any console function's handler with its own table of routes, by its name: the tests call the
 * handlers as API Gateway would (console-world.ts, signed-in-console.ts), over ports they make; a
 * function's bundle holds only its own table.
 */
import { consoleHandler } from '../../functions/console-runtime.js';
import { ANSWERS_ROUTES } from '../../shared/console/answers-routes.js';
import type { ConsoleHandlerName } from '../../shared/console/api.js';
import { FILES_ROUTES } from '../../shared/console/files-routes.js';
import type { ConsoleRoutes } from '../../shared/console/http.js';
import type { ConsolePorts } from '../../shared/console/ports.js';
import { READ_ROUTES } from '../../shared/console/read-routes.js';

const ROUTE_TABLES: { [H in ConsoleHandlerName]: ConsoleRoutes<H> } = {
  'console-read': READ_ROUTES,
  'console-files': FILES_ROUTES,
  'console-answers': ANSWERS_ROUTES,
};

/** The handler of the console function `name`, answering from its own routes over `ports`. */
export const consoleHandlerOf = <H extends ConsoleHandlerName>(name: H, ports: () => ConsolePorts) =>
  consoleHandler(name, ROUTE_TABLES[name], ports);
