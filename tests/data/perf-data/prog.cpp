// tests/data/perf-data: a C++ program with templates in a namespace (README.md)
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace ns {
template <class T> struct Work {
	__attribute__((noinline)) T run(const std::vector<T> &v, int k)
	{
		T s = 0;
		for (int j = 0; j < k; j++)
			for (auto x : v)
				s += x * j;
		return s;
	}
};
} // namespace ns

int main(int argc, char **argv)
{
	int k = argc > 1 ? atoi(argv[1]) : 3000;
	std::vector<double> v(1000, 1.5);
	ns::Work<double> w;
	double t = 0;
	for (int i = 0; i < k; i++)
		t += w.run(v, i % 50);
	std::printf("%f\n", t);
	return 0;
}
