// Route stub until its issue lands: answers 501.
import { apiHandler, notImplemented } from '../http/api-handler';

export const handler = apiHandler(notImplemented);
