// The parts of npm `smpp` (0.5.x, no types of its own) this project uses: the client session and the server side.
declare module 'smpp' {
  import type { EventEmitter } from 'node:events';
  import type { Server as NetServer, Socket } from 'node:net';

  namespace smpp {
    /** A decoded PDU: the header, the command's parameters and its TLVs, by name. */
    interface PDU {
      command: string;
      command_id: number;
      command_status: number;
      sequence_number: number;
      [field: string]: any;
      isResponse(): boolean;
      response(options?: Record<string, unknown>): PDU;
    }

    type ResponseCallback = (pdu: PDU) => void;
    type Command = (options: Record<string, unknown>, callback?: ResponseCallback) => boolean;

    class Session extends EventEmitter {
      socket: Socket;
      send(pdu: PDU, responseCallback?: ResponseCallback, sendCallback?: ResponseCallback): boolean;
      close(callback?: () => void): void;
      destroy(callback?: () => void): void;
      bind_transceiver: Command;
      submit_sm: Command;
      deliver_sm: Command;
      enquire_link: Command;
      unbind: Command;
    }

    interface Server extends NetServer {
      sessions: Session[];
    }

    function connect(options: { host: string; port: number; tls?: boolean }): Session;
    function createServer(options: Record<string, unknown>, listener?: (session: Session) => void): Server;

    const errors: Record<string, number>;
  }
  export = smpp;
}
