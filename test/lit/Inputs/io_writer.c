/* An output routine of another file, standing for a write-only I/O library
 * (PnetCDF's ncmpi_put_vara_double_all in miniWeather): it reads the data it
 * is given and changes nothing that carries derivatives.  It keeps what it
 * read instead of printing it, so that the test's output does not depend on
 * the order in which ranks print. */
double io_writer_last_sum;

int write_field(const char *name, const double *data, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += data[i];
  io_writer_last_sum = s;
  return name == 0;
}
