/** What the server wiring and the routes use of the receptionist (ADR 0041): its call purpose, its webhooks, the owner's messages. */
export { receptionistCallPurpose } from "./purpose.server";
export { answerInboundCall, inboundStatus, transferEnded, voicemailRecorded, voicemailTranscription } from "./inbound.server";
export { listOwnerMessages, loadOwnerMessages, voicemailEmailJob, type OwnerMessage, type OwnerMessagesView } from "./messages.server";
