// libqrencode (Debian: libqrencode-dev), the QR encoder the console draws the second factor's
// link with.
#include <qrencode.h>
