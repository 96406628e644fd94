/** What other features may use of auth on the server: the signed-in account and password hashing. */
export { commitSubscriberLogout, getAccount, getAccountAndBusiness, getSignedIn, getSubscriberId, passSecondFactor } from "./auth.server";
export { generateTemporaryPassword, hashPassword, verifyPassword } from "./passwords.server";
